/**
 * `npm run bench -- agents`: each real agent CLI (Claude Code, Codex, Gemini CLI, as pinned in
 * packages/testkit/agents.json and installed outside node_modules; a missing one is skipped,
 * saying so) driven through the daemon and the real `clippy` process against the fake model
 * server, beside the same agent's own headless mode (`claude -p`, `codex exec`, `gemini -p`) in
 * the same run:
 *
 * - the time from the model's last byte to the answer printed: `clippy ask` (p50/p99 over ASKS
 *   asks) against the headless mode (HEADLESS_RUNS runs);
 * - the round trip of one question: `clippy ask` from its start to its exit against a headless
 *   run from its start to its exit (which also starts the agent);
 * - a fresh start: the session's spawn until `clippy ls` says idle, and until the first `clippy
 *   ask` sent then has printed its answer (STARTS starts), against a headless run.
 *
 * AGENTS_BENCH=claude,codex runs some agents only. Prints, never asserts. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { ClippyClient } from '@clippy/client';
import { bins } from '@clippy/testkit/paths';
import {
  startFakeModel,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import {
  AGENT_PINS,
  REAL_AGENTS,
  findAgent,
  prepareAgent,
  type RealAgentName,
} from '@clippy/testkit/real-agents';
import {
  startRealAgent,
  untilListed,
  type RealAgentSession,
} from '@clippy/testkit/real-agent-session';
import { TestDaemon, fmt, percentile } from './_turns-common.js';
import { loadAverage } from './_common.js';

/** Asks per agent through clippy, one after another in one session (as a user asks on). */
const ASKS = 20;
/** Headless runs per agent: each starts the agent anew (seconds each on a busy machine). */
const HEADLESS_RUNS = 5;
/** Fresh starts per agent (a new session each), each followed at once by one ask. */
const STARTS = 3;
/** AGENTS_BENCH=claude,codex: only these agents (default all three). */
const ONLY = process.env.AGENTS_BENCH?.split(',');
/** Longest one ask or headless run may take before the run gives up. */
const RUN_TIMEOUT_MS = 180_000;

/** The agents' own headless modes: one question in, the answer printed, exit (the benched ones). */
const HEADLESS: Partial<Record<RealAgentName, (q: string) => string[]>> = {
  claude: (q) => ['-p', q],
  codex: (q) => ['exec', '--skip-git-repo-check', q],
  gemini: (q) => ['-p', q],
};

/** The agent's headless arguments for `question`; an agent without a headless mode here is refused. */
function headlessArgs(agent: RealAgentName, question: string): string[] {
  const args = HEADLESS[agent];
  if (!args) throw new Error(`no headless mode is known for ${agent}: add it to HEADLESS`);
  return args(question);
}

/** What each benched agent is called in the figures. */
const LABEL: Partial<Record<RealAgentName, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
};

interface Timed {
  /** performance.now() when the process was started. */
  startedAt: number;
  /** performance.now() of the first non-blank output on stdout (the answer). */
  printedAt: number;
  /** performance.now() when it exited. */
  exitedAt: number;
  stdout: string;
}

/** Runs a command to its exit, timing its start, its first printed byte and its exit. */
function timed(
  command: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(command, args, {
      env: opts.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printedAt = NaN;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      if (Number.isNaN(printedAt) && b.toString().trim() !== '') printedAt = performance.now();
      stdout += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const exitedAt = performance.now();
      if (code !== 0)
        reject(
          new Error(
            `${command} ${args[0]} exited ${code ?? signal}: ${(stderr || stdout).slice(-400)}`,
          ),
        );
      else resolve({ startedAt, printedAt, exitedAt, stdout });
    });
  });
}

/** The conversation request that carried `question`, answered. */
function answered(model: FakeModel, question: string): ModelRequest & { answeredAt: number } {
  const r = model.requests.find((q) => q.conversation && q.userText?.includes(question));
  if (r?.answeredAt === undefined) throw new Error(`the model did not answer "${question}"`);
  return r as ModelRequest & { answeredAt: number };
}

/** `clippy ask NAME QUESTION`, the real CLI process, timed. */
function clippyAsk(d: TestDaemon, name: string, question: string): Promise<Timed> {
  return timed(process.execPath, [bins.clippy, 'ask', name, question, '--timeout', '150'], {
    env: d.env.env,
  });
}

interface Figures {
  /** Model's last byte → answer printed. */
  lastByte: number[];
  /** Process start → exit, one question. */
  roundTrip: number[];
}

/** ASKS asks through clippy into one running session. */
async function viaClippy(d: TestDaemon, s: RealAgentSession, model: FakeModel): Promise<Figures> {
  const f: Figures = { lastByte: [], roundTrip: [] };
  for (let i = 1; i <= ASKS; i++) {
    const question = `Question ${i} of the benchmark: what is ${i}+${i}?`;
    const t = await clippyAsk(d, s.name, question);
    f.lastByte.push(t.printedAt - answered(model, question).answeredAt);
    f.roundTrip.push(t.exitedAt - t.startedAt);
  }
  return f;
}

/** HEADLESS_RUNS runs of the agent's own headless mode, each a fresh process. */
async function headless(agent: RealAgentName, model: FakeModel, root: string): Promise<Figures> {
  const f: Figures = { lastByte: [], roundTrip: [] };
  const h = prepareAgent(agent, model, { root });
  try {
    for (let i = 1; i <= HEADLESS_RUNS; i++) {
      const question = `Headless question ${i}: what is ${i}*${i}?`;
      const t = await timed(h.command, headlessArgs(agent, question), { env: h.env, cwd: h.cwd });
      f.lastByte.push(t.printedAt - answered(model, question).answeredAt);
      f.roundTrip.push(t.exitedAt - t.startedAt);
    }
  } finally {
    h.dispose();
  }
  return f;
}

interface Starts {
  /** Spawn → `clippy ls` says idle. */
  idle: number[];
  /** Spawn → the first ask's answer printed (the ask sent the moment ls said idle). */
  firstAnswer: number[];
  /** First asks that failed (their errors). */
  failed: string[];
}

/** STARTS fresh sessions of the agent, each asked once the moment `clippy ls` says idle. */
async function starts(
  d: TestDaemon,
  c: ClippyClient,
  agent: RealAgentName,
  model: FakeModel,
): Promise<Starts> {
  const f: Starts = { idle: [], firstAnswer: [], failed: [] };
  for (let i = 1; i <= STARTS; i++) {
    const at = performance.now();
    const s = await startRealAgent(d, c, agent, model, { name: `${agent}-start-${i}` });
    try {
      await untilListed(d.env.env, s.name, ['idle']);
      f.idle.push(performance.now() - at);
      const question = `First question after start ${i}: what is ${i}-${i}?`;
      try {
        const t = await clippyAsk(d, s.name, question);
        f.firstAnswer.push(t.printedAt - at);
      } catch (err) {
        f.failed.push((err as Error).message.split('\n')[0]!);
      }
    } finally {
      await stop(d, c, s);
    }
  }
  return f;
}

/** Kills the session and, once it has exited (nothing writes there any more), removes its HOME. */
async function stop(d: TestDaemon, c: ClippyClient, s: RealAgentSession): Promise<void> {
  await c.request('kill', { session: s.name });
  await untilListed(d.env.env, s.name, ['exited']);
  s.dispose();
}

const line = (what: string, v: number[]) =>
  `  ${what.padEnd(48)} p50 ${fmt(percentile(v, 50)).padStart(11)}   p99 ${fmt(percentile(v, 99)).padStart(11)}   (n=${v.length})\n`;
const ratio = (a: number[], b: number[]) =>
  `${(percentile(a, 50) / percentile(b, 50)).toFixed(2)}x`;

async function benchAgent(agent: RealAgentName): Promise<void> {
  const model = await startFakeModel({
    respond: (r) => ({ kind: 'text', text: `Answer to ${r.userText?.slice(0, 40)}` }),
  });
  const d = await TestDaemon.start();
  const out = (text: string) => process.stdout.write(text);
  try {
    const c = await d.connect();
    const pin = AGENT_PINS[agent];
    const mode = `${pin.bin} ${headlessArgs(agent, 'Q').slice(0, -1).join(' ')}`;
    out(`${LABEL[agent] ?? agent} ${pin.version} (load ${loadAverage()})\n`);
    const s = await startRealAgent(d, c, agent, model);
    await untilListed(d.env.env, s.name, ['idle']);
    const ask = await viaClippy(d, s, model);
    await stop(d, c, s);
    const own = await headless(agent, model, d.env.root);
    out(` the model's last byte -> the answer printed\n`);
    out(line('clippy ask', ask.lastByte));
    out(line(`${mode} (headless)`, own.lastByte));
    out(`  clippy ask / headless at p50: ${ratio(ask.lastByte, own.lastByte)}\n`);
    out(` one question, the process's start -> its exit\n`);
    out(line('clippy ask (the agent already running)', ask.roundTrip));
    out(line(`${mode} (starts the agent)`, own.roundTrip));
    out(`  clippy ask / headless at p50: ${ratio(ask.roundTrip, own.roundTrip)}\n`);
    const fresh = await starts(d, c, agent, model);
    await c.close();
    out(` a fresh start, from the session's spawn (load ${loadAverage()})\n`);
    out(line('clippy ls says idle', fresh.idle));
    out(line('first clippy ask, sent then, printed', fresh.firstAnswer));
    out(
      `  first answer after a start / headless round trip at p50: ${ratio(fresh.firstAnswer, own.roundTrip)}\n`,
    );
    if (fresh.failed.length)
      out(
        `  first asks that failed: ${fresh.failed.length} of ${STARTS}: ${fresh.failed.join('; ')}\n`,
      );
  } finally {
    await d.stop();
    await model.close();
  }
}

export async function run(): Promise<void> {
  process.stdout.write(`load average: ${loadAverage()}\n`);
  for (const agent of REAL_AGENTS.filter((a) => !ONLY || ONLY.includes(a))) {
    const found = findAgent(agent);
    if ('missing' in found) {
      process.stdout.write(`${LABEL[agent] ?? agent}: skipped, ${found.missing}\n`);
      continue;
    }
    await benchAgent(agent);
  }
}
