import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { indexRepository, type RepoIndex } from '@clippy/repomap';
import { RunReportSchema, serializeRunReport, type RunReport } from '@clippy/reports';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPlanner, type ScriptStep } from '../test/scripted-planner.js';
import { navigate, type NavigatorOptions, type NavigatorResult } from './navigator.js';
import { navigatorRunReport } from './run-report.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall } from './tools.js';
import { programMissing } from '@clippy/testkit/requirements';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const repoRoot = path.resolve(appRoot, '../../../../..');
const JQ = '/usr/bin/jq';

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv({ allErrors: true });
addFormats(ajv);
const validate = ajv.compile(
  JSON.parse(
    fs.readFileSync(path.join(repoRoot, 'docs', 'run-report.schema.json'), 'utf8'),
  ) as object,
);

/** The report must pass both the shipped JSON Schema and the zod schema (counters included). */
function expectValid(report: RunReport): void {
  const json: unknown = JSON.parse(serializeRunReport(report));
  expect(validate(json) ? [] : validate.errors).toEqual([]);
  expect(() => RunReportSchema.parse(json)).not.toThrow();
}

let index: RepoIndex;
let dir = '';
beforeAll(async () => {
  index = await indexRepository({ root: appRoot, cache: false });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const update = (pattern: string, level: number): ToolCall => ({
  name: UPDATE_FLIGHT_PLAN,
  args: { reasoning: pattern, updates: { verbosity: [{ pattern, level }] } },
});
const finalize: ToolCall = { name: FINALIZE_CONTEXT, args: { summary: 'auth in full' } };

function run(
  script: ScriptStep[],
  extra: Partial<NavigatorOptions> = {},
): Promise<NavigatorResult> {
  return navigate({
    root: appRoot,
    index,
    goal: 'fix the token refresh bug in auth',
    planner: new ScriptedPlanner(script),
    pricing: { model: 'scripted', input: 0.3, output: 2.5 },
    tokenBudget: 3000,
    maxSpendUsd: 1.5,
    maxIterations: 5,
    mode: 'interactive',
    ...extra,
  });
}

describe('navigator run → run report', () => {
  it('every model call and tool call is in the timeline with its duration and estimate; settings hold the options', async () => {
    const result = await run([
      {
        // A failed attempt that was retried, then the answer: the second call is a retry.
        events: [
          { retry: true, retry_reason: 'rate_limit', error: 'HTTP 429', finish_reason: null },
          { duration_ms: 2001 },
        ],
        calls: [update('src/auth/**', 4), { name: 'nope', args: {} }],
      },
      { events: [{ finish_reason: 'MAX_TOKENS' }], calls: [finalize] },
    ]);
    const report = navigatorRunReport(result);
    expectValid(report);
    expect(report.task).toBe('fix the token refresh bug in auth');
    expect(report.model).toBe('scripted');
    expect(report.provider).toBe('gemini');
    expect(report.settings).toEqual({
      max_turns: 5,
      clippy: {
        planner: 'gemini',
        model: 'scripted',
        mode: 'interactive',
        token_budget: 3000,
        max_cost_usd: 1.5,
        max_iterations: 5,
        price_input_per_1m: 0.3,
        price_output_per_1m: 2.5,
      },
    });
    const tools = result.timeline.filter((e) => e.type === 'tool_call');
    expect(
      report.timeline.map((e) => [
        e.turn,
        e.type,
        'name' in e ? e.name : '',
        'is_retry' in e ? e.is_retry : '',
      ]),
    ).toEqual([
      [1, 'llm_call', '', false],
      [1, 'llm_call', '', true],
      [1, 'tool_call', UPDATE_FLIGHT_PLAN, ''],
      [1, 'tool_call', 'nope', ''],
      [2, 'llm_call', '', false],
      [2, 'truncated_response', '', ''],
      [2, 'tool_call', FINALIZE_CONTEXT, ''],
    ]);
    const llm = report.timeline.filter((e) => e.type === 'llm_call');
    expect(llm.map((e) => [e.duration_s, e.prompt_tokens_est, e.finish_reason])).toEqual([
      [1.234, 901, 'error'],
      [2.001, 901, 'stop'],
      [1.234, 902, 'length'],
    ]);
    const reportTools = report.timeline.filter((e) => e.type === 'tool_call');
    expect(reportTools.map((e) => e.duration_s)).toEqual(
      tools.map((t) => Math.round(t.duration_ms) / 1000),
    );
    expect(reportTools.map((e) => e.result_length)).toEqual(tools.map((t) => t.result_length));
    expect(reportTools[1]).toMatchObject({
      succeeded: false,
      error: expect.stringContaining('unknown function') as string,
    });
    expect(report.stats).toMatchObject({
      turns: 2,
      llm_calls: 3,
      total_llm_time_s: 4.469,
      tool_calls_total: 3,
      tool_calls_failed: 1,
      truncated_responses: 1,
    });
    expect(report.result).toEqual({ outcome: 'success', answer: result.context, exit_code: 0 });
    expect(report.timestamp).toBe(result.finished_at);
  });

  it.each([
    [
      'max_iterations',
      [[update('src/auth/**', 3)], [update('src/billing/**', 3)]],
      { maxIterations: 2 },
      'exhausted',
      2,
    ],
    [
      'budget_exceeded',
      [[update('src/auth/**', 3)], { budgetExceeded: 'the next call would pass the $1.50 limit' }],
      {},
      'exhausted',
      2,
    ],
    [
      'the planner failing',
      [[update('src/auth/**', 3)], { failed: 'Gemini call failed: HTTP 403' }],
      {},
      'error',
      1,
    ],
    [
      'the user stopping (n)',
      [[update('src/auth/**', 3)]],
      { onTurn: () => ({ action: 'stop' as const }) },
      'success',
      0,
    ],
  ] as const)(
    'a run ended by %s is %s, exit code %i',
    async (_why, script, extra, outcome, code) => {
      const result = await run(
        script as unknown as ScriptStep[],
        extra as Partial<NavigatorOptions>,
      );
      const report = navigatorRunReport(result);
      expectValid(report);
      expect(report.result.outcome).toBe(outcome);
      expect(report.result.exit_code).toBe(code);
      if (report.result.outcome === 'error') {
        expect(report.result.answer).toBeNull();
        expect(report.result.error_message).toBe('Gemini call failed: HTTP 403');
      } else {
        expect(report.result.answer).toBe(result.context);
      }
      expect(report.stats.turns).toBe(result.state.iterations);
    },
  );

  it.skipIf(programMissing('jq') !== null)(
    'the seed jq examples read a navigator report',
    async () => {
      const result = await run([
        [update('src/auth/**', 7)],
        [update('src/auth/**', 4)],
        [finalize],
      ]);
      const file = path.join(dir, 'nav.json');
      fs.writeFileSync(file, serializeRunReport(navigatorRunReport(result)));
      const jq = (filter: string): unknown =>
        JSON.parse(execFileSync(JQ, [filter, file], { encoding: 'utf8' }));
      expect(jq('{outcome: .result.outcome, turns: .stats.turns}')).toEqual({
        outcome: 'success',
        turns: 3,
      });
      expect(jq('{llm: .stats.total_llm_time_s, tools: .stats.total_tool_time_s}')).toEqual({
        llm: 3.702,
        tools:
          Math.round(
            result.timeline
              .filter((e) => e.type === 'tool_call')
              .reduce((s, e) => s + e.duration_ms, 0),
          ) / 1000,
      });
      expect(jq('.stats.tool_calls_by_name')).toEqual({
        update_flight_plan: { succeeded: 1, failed: 1 },
        finalize_context: { succeeded: 1, failed: 0 },
      });
      const failed = jq('[.timeline[] | select(.type == "tool_call" and .succeeded == false)]') as {
        name: string;
        turn: number;
        error: string;
      }[];
      expect(failed.map((f) => [f.turn, f.name])).toEqual([[1, UPDATE_FLIGHT_PLAN]]);
      expect(failed[0]!.error).toContain('level must be 0, 1, 2, 3 or 4');
      expect(jq('{compactions: .stats.compactions, turn_drops: .stats.turn_drops}')).toEqual({
        compactions: 0,
        turn_drops: 0,
      });
    },
  );
});
