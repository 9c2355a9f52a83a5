import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlightPlan } from '@clippy/repomap';
import { RunReportSchema } from '@clippy/reports';
import { TestDaemon } from '@clippy/testkit/daemon';
import { DESKTOP_VARS, OUTSIDE_SERVICE_VARS, envWithout } from '@clippy/testkit/env';
import { startFakeModel, type FakeModel, type Usage } from '@clippy/testkit/fake-model/server';
import { bins } from '@clippy/testkit/paths';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMissing } from '@clippy/testkit/requirements';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const repoRoot = path.resolve(appRoot, '../../../../..');

const dirs: string[] = [];
let fake: FakeModel | undefined;
let daemon: TestDaemon | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await daemon?.stop();
  daemon = undefined;
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
  dirs.push(d);
  return d;
}

/**
 * Runs `clippy navigate` as the user does, the built CLI (`npm test` builds first; run from
 * source through tsx, each process cost three times the CPU); resolves with its code and output.
 */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = tmp();
  // No desktop either: a test never touches the user's clipboard.
  const base = envWithout(process.env, OUTSIDE_SERVICE_VARS, DESKTOP_VARS);
  const child = spawn(process.execPath, [bins.clippy, 'navigate', ...args], {
    cwd: repoRoot,
    // A private runtime dir: no broker answers there, so the run is standalone.
    env: { ...base, XDG_CACHE_HOME: dir, XDG_CONFIG_HOME: dir, XDG_RUNTIME_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv({ allErrors: true });
addFormats(ajv);
const validateRunReport = ajv.compile(
  JSON.parse(
    fs.readFileSync(path.join(repoRoot, 'docs', 'run-report.schema.json'), 'utf8'),
  ) as object,
);

const brokerBuilt =
  buildMissing(path.join(path.dirname(bins.clippyd), '..', 'dist', 'main.js')) === null;

const usage: Usage = { input: 20_000, output: 1_000, thoughts: 0 };
const goal = ['--goal', 'fix the token refresh bug in auth', '--budget', '3000'];

describe('clippy navigate (command module as a process)', () => {
  it('runs the Gemini planner against GEMINI_BASE_URL and prints the whole result with --json', async () => {
    fake = await startFakeModel({
      script: [
        {
          kind: 'tool',
          name: 'update_flight_plan',
          input: {
            reasoning: 'auth in full',
            updates: { verbosity: [{ pattern: 'src/auth/**', level: 4 }] },
          },
          usage,
        },
        {
          kind: 'tool',
          name: 'finalize_context',
          input: { summary: 'auth module in full' },
          usage,
        },
      ],
      defaultAnswer: { kind: 'error', status: 400, message: 'no scripted answer left' },
    });
    const dir = tmp();
    const planFile = path.join(dir, 'plan.yaml');
    const r = await cli(
      [
        appRoot,
        ...goal,
        '--json',
        '--quiet',
        '--flight-plan',
        planFile,
        '--model',
        'gemini-2.5-pro',
      ],
      {
        GEMINI_API_KEY: 'test-key',
        GEMINI_BASE_URL: fake.url,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as {
      completion_reason: string;
      exit_code: number;
      context: string;
      state: { budget: { current_spend_usd: number }; flight_plan: unknown };
      reports: unknown[];
      timeline: { type: string }[];
    };
    expect(json.completion_reason).toBe('agent_done');
    expect(json.exit_code).toBe(0);
    // gemini-2.5-pro: $1.25 in, $10 out per 1M; two calls of 20,000 in + 1,000 out.
    expect(json.state.budget.current_spend_usd).toBeCloseTo(
      (2 * (20_000 * 1.25 + 1_000 * 10)) / 1e6,
      12,
    );
    expect(json.context).toContain('- Summary: auth module in full');
    expect(json.reports).toHaveLength(2);
    expect(json.timeline.map((e) => e.type)).toEqual([
      'model_call',
      'tool_call',
      'model_call',
      'tool_call',
    ]);
    expect(fake.conversation('gemini').map((q) => q.model)).toEqual([
      'gemini-2.5-pro',
      'gemini-2.5-pro',
    ]);
    const yaml = fs.readFileSync(planFile, 'utf8');
    expect(yaml).toMatch(
      /^# clippy navigator flight plan\n# goal: fix the token refresh bug in auth\n/,
    );
    expect(parseFlightPlan(yaml)).toEqual(json.state.flight_plan);
  });

  it('writes a run report with --report (schema-valid, answer = context, exit code = result.exit_code) and --execution-report', async () => {
    const dir = tmp();
    const reportFile = path.join(dir, 'run.json');
    const limitedFile = path.join(dir, 'limited.json');
    const mdFile = path.join(dir, 'report.md');
    const common = [appRoot, ...goal, '--planner', 'offline', '--quiet'];
    const [r, limited] = await Promise.all([
      cli([...common, '--report', reportFile, '--execution-report', mdFile, '--no-copy']),
      cli([...common, '--report', limitedFile, '--max-iterations', '1']),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json: unknown = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
    expect(validateRunReport(json) ? [] : validateRunReport.errors).toEqual([]);
    const report = RunReportSchema.parse(json);
    expect(report.result.outcome).toBe('success');
    expect(report.result.exit_code).toBe(0);
    expect(report.result.answer).toMatch(/^# Context: fix the token refresh bug in auth/);
    // The report is written beside the output: the context still goes to stdout.
    expect(r.stdout).toBe(report.result.answer);
    expect(report.provider).toBe('offline');
    expect(report.settings.max_turns).toBe(20);
    expect(report.settings.clippy).toMatchObject({
      planner: 'offline',
      mode: 'autonomous',
      token_budget: 3000,
      max_cost_usd: 2,
      max_iterations: 20,
    });
    const tools = report.timeline
      .filter((e) => e.type === 'tool_call')
      .map((e) => (e as { name: string }).name);
    // One tool call per offline step: plan updates, then finalize_context.
    expect(report.stats.turns).toBe(tools.length);
    expect(tools[0]).toBe('update_flight_plan');
    expect(tools.at(-1)).toBe('finalize_context');
    // The Execution Report file: one action per tool call, all successful.
    const md = fs.readFileSync(mdFile, 'utf8');
    expect(md).toMatch(/^# Execution Report\n\n\*\*Run Summary:\*\*\n- \*\*Status:\*\* SUCCESS\n/);
    expect(md).toContain(`- **Working Directory:** ${appRoot}\n`);
    expect([...md.matchAll(/^### Action \d+: (\S+)$/gm)].map((m) => m[1])).toEqual(tools);
    // The step limit: exhausted, exit code 2 (the report's), the context still the answer.
    expect(limited.code).toBe(2);
    const exhausted = RunReportSchema.parse(JSON.parse(fs.readFileSync(limitedFile, 'utf8')));
    expect(exhausted.result).toMatchObject({ outcome: 'exhausted', exit_code: 2 });
    expect(exhausted.result.answer).toContain('- Completion: max_iterations after 1 step');
  });

  it('sets the Execution Report pruning-tip threshold with --tip-max-lines or config.json', async () => {
    const dir = tmp();
    const common = [appRoot, ...goal, '--planner', 'offline', '--quiet', '--no-copy'];
    const md = (name: string) => path.join(dir, name);
    const configHome = tmp();
    fs.mkdirSync(path.join(configHome, 'clippy'));
    fs.writeFileSync(
      path.join(configHome, 'clippy', 'config.json'),
      JSON.stringify({ executionReport: { tipMaxChars: 10 } }),
    );
    // One after another: four navigator processes at once are slow on a loaded machine.
    const plain = await cli([...common, '--execution-report', md('plain.md')]);
    const flag = await cli([
      ...common,
      '--execution-report',
      md('flag.md'),
      '--tip-max-lines',
      '3',
    ]);
    const config = await cli([...common, '--execution-report', md('config.md')], {
      XDG_CONFIG_HOME: configHome,
    });
    const bad = await cli([...common, '--tip-max-lines', '-1']);
    for (const r of [plain, flag, config]) expect(r.code).toBe(0);
    const tip = '> **Tip:** This execution report is large.';
    // A short run stays under the seed's defaults (80 lines, 4000 characters): no tip.
    expect(fs.readFileSync(md('plain.md'), 'utf8')).not.toContain(tip);
    expect(fs.readFileSync(md('flag.md'), 'utf8')).toContain(tip);
    expect(fs.readFileSync(md('config.md'), 'utf8')).toContain(tip);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--tip-max-lines must be a whole number of 0 or more (got '-1')");
  }, 120_000);

  it('falls back to the offline planner without a key, and says so', async () => {
    const r = await cli([appRoot, ...goal]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no GEMINI_API_KEY or GOOGLE_API_KEY: using the offline planner');
    expect(r.stderr).toContain('TURN REPORT - Step 1');
    expect(r.stdout).toMatch(/^# Context: fix the token refresh bug in auth/);
  });

  it('exits 64 on invalid options, naming the problem', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[appRoot], {}, /needs --goal/],
      [
        [appRoot, '--goal', 'x', '--budget', '0'],
        {},
        /--budget must be a whole number of 1 or more \(got '0'\)/,
      ],
      [[path.join(appRoot, 'nope'), '--goal', 'x'], {}, /not a directory/],
      [
        [appRoot, '--goal', 'x', '--model', 'gemini-9-ultra'],
        { GEMINI_API_KEY: 'k' },
        /no price for model "gemini-9-ultra"/,
      ],
    ];
    const results = await Promise.all(cases.map(([args, env]) => cli(args, env)));
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(64);
      expect(r.stderr).toMatch(cases[i]![2]);
    });
  });

  it.skipIf(!brokerBuilt)(
    "puts the Execution Report in a running broker's relay buffer and says where it went",
    async () => {
      daemon = await TestDaemon.start();
      const dir = tmp();
      const mdFile = path.join(dir, 'report.md');
      const bufferFile = path.join(dir, 'buffer.md');
      // -i with no input: end of input counts as Enter, so the run stops after step 1.
      const env = envWithout(daemon.env.env, DESKTOP_VARS);
      const r = await cli([appRoot, ...goal, '-i', '--execution-report', mdFile], env);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `clippy: Execution report put in the relay buffer: \`clippy paste <session>\` and written to ${mdFile}\n`,
      );
      expect(r.stderr).toContain('clippy: not copied to the clipboard: no clipboard available');
      const client = await daemon.connect();
      try {
        await client.request('deliver', { sink: 'file', path: bufferFile });
      } finally {
        await client.close();
      }
      const md = fs.readFileSync(mdFile, 'utf8');
      expect(md).toMatch(/^# Execution Report\n/);
      expect(fs.readFileSync(bufferFile, 'utf8')).toBe(md);
    },
  );
});
