/**
 * `npm run bench -- agents-breakdown`: where the time of a `clippy ask` through each real agent
 * CLI goes (issue 31's goal: ask p50 ≤ 300 ms from the model's last byte), split at what the
 * daemon and a client can see, in the same run:
 *
 * - agent: the model's last byte → the agent's last output before its turn completed (the
 *   agent rendering its answer and prompt: not clippy's);
 * - screen: that output → the screen's `idle` (the preset's settle window and classification;
 *   shorter once the agent's record says the turn ended);
 * - join: `idle` → `turn_completed` (the turn held for the agent's own report: its transcript,
 *   rollout or chat file, else its hook);
 * - cli: `turn_completed` → `clippy ask` printing (the CLI's wait and print).
 *
 * The baseline is the sum of the parts beside the whole (agent's share vs clippy's). ASKS asks
 * per agent (BREAKDOWN_ASKS, default 10), each one `clippy ask` process; BREAKDOWN_AGENTS names
 * some agents only. Prints, never asserts.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';
import { startFakeModel, type FakeModel } from '@clippy/testkit/fake-model/server';
import { bins } from '@clippy/testkit/paths';
import { REAL_AGENTS, findAgent, type RealAgentName } from '@clippy/testkit/real-agents';
import { startRealAgent, untilListed } from '@clippy/testkit/real-agent-session';
import { loadAverage } from './_common.js';
import { TestDaemon, fmt, percentile } from './_turns-common.js';

const ASKS = Number(process.env.BREAKDOWN_ASKS ?? 10);
/** BREAKDOWN_AGENTS=claude,codex: only these (default all three). */
const ONLY = process.env.BREAKDOWN_AGENTS?.split(',');
/** Longest one ask may take before the run gives up. */
const ASK_TIMEOUT_MS = 180_000;

/** performance.now() of what the daemon pushed about the session during one ask. */
interface Marks {
  /** Each output push (the observer's copy of the PTY). */
  outputs: number[];
  /** Each `state_changed` to idle, and each `turn_completed`. */
  idle: number[];
  turns: number[];
}

/** Where each turn's answer came from (the agent's record: transcript, rollout, chat file…). */
const sources = new Map<string, number>();

/** Runs `clippy ask` and resolves with when its stdout first carried text. */
function ask(d: TestDaemon, name: string, question: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bins.clippy, 'ask', name, question, '--timeout', String(ASK_TIMEOUT_MS / 1000)],
      { env: d.env.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let printedAt = NaN;
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      if (Number.isNaN(printedAt) && b.toString().trim() !== '') printedAt = performance.now();
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(printedAt) : reject(new Error(`clippy ask exited ${code}: ${stderr}`)),
    );
  });
}

async function benchAgent(agent: RealAgentName): Promise<void> {
  const model: FakeModel = await startFakeModel({
    respond: (r) => ({ kind: 'text', text: `Answer to ${r.userText?.slice(0, 40)}` }),
  });
  const d = await TestDaemon.start();
  const parts: Record<'agent' | 'screen' | 'join' | 'cli' | 'total', number[]> = {
    agent: [],
    screen: [],
    join: [],
    cli: [],
    total: [],
  };
  let events: ClippyClient | null = null;
  let observer: ClippyClient | null = null;
  try {
    const c = await d.connect();
    const s = await startRealAgent(d, c, agent, model);
    await untilListed(d.env.env, s.name, ['idle']);
    events = await d.connect();
    observer = await d.connect();
    await events.request('subscribe', {
      events: ['state_changed', 'turn_completed'],
      sessions: [s.session],
    });
    await observer.request('attach', { session: s.session, mode: 'observer', ignore_size: true });
    let marks: Marks = { outputs: [], idle: [], turns: [] };
    observer.on('output', () => marks.outputs.push(performance.now()));
    events.on('state_changed', (m: Push<'state_changed'>) => {
      if (m.state === 'idle') marks.idle.push(performance.now());
    });
    events.on('turn_completed', (m: Push<'turn_completed'>) => {
      marks.turns.push(performance.now());
      const via = m.turn.agent?.via ?? 'screen';
      sources.set(via, (sources.get(via) ?? 0) + 1);
    });
    for (let i = 1; i <= ASKS; i++) {
      const question = `Breakdown question ${i}: what is ${i}+${i}?`;
      marks = { outputs: [], idle: [], turns: [] };
      const asked = ask(d, s.name, question);
      await model.waitFor((r) => r.conversation === true && !!r.userText?.includes(question), {
        answered: true,
        timeoutMs: ASK_TIMEOUT_MS,
      });
      const last = model.requests.findLast((r) => r.userText?.includes(question))!.answeredAt!;
      const printedAt = await asked;
      // What came after the model's last byte: the answer's turn (not the submit's changes).
      const idleAt = marks.idle.find((t) => t > last) ?? NaN;
      const turnAt = marks.turns.find((t) => t > last) ?? NaN;
      const lastOut = marks.outputs.filter((t) => t <= Math.min(idleAt, turnAt)).at(-1) ?? last;
      parts.agent.push(lastOut - last);
      parts.screen.push(idleAt - lastOut);
      parts.join.push(turnAt - idleAt);
      parts.cli.push(printedAt - turnAt);
      parts.total.push(printedAt - last);
    }
    await c.request('kill', { session: s.name });
    await untilListed(d.env.env, s.name, ['exited']);
    s.dispose();
    await c.close();
  } finally {
    await observer?.close();
    await events?.close();
    await d.stop();
    await model.close();
  }
  const row = (what: string, v: number[]) =>
    `  ${what.padEnd(58)} p50 ${fmt(percentile(v, 50)).padStart(10)}   p99 ${fmt(percentile(v, 99)).padStart(10)}\n`;
  const out = (t: string) => process.stdout.write(t);
  out(`${agent} (${ASKS} asks, load ${loadAverage()})\n`);
  out(row("agent: model's last byte -> its last output", parts.agent));
  out(row('screen: last output -> idle (settle, classification)', parts.screen));
  out(row('join: idle -> turn_completed (waits for its report)', parts.join));
  out(row('cli: turn_completed -> clippy ask printed', parts.cli));
  out(row("whole: model's last byte -> clippy ask printed", parts.total));
  out(`  answers from: ${[...sources].map(([via, n]) => `${via} ${n}`).join(', ')}\n`);
  sources.clear();
  const clippy = percentile(parts.total, 50) - percentile(parts.agent, 50);
  out(
    `  clippy's share at p50: ${fmt(clippy)} of ${fmt(percentile(parts.total, 50))} (the agent's own: ${fmt(percentile(parts.agent, 50))})\n`,
  );
}

export async function run(): Promise<void> {
  for (const agent of REAL_AGENTS.filter((a) => !ONLY || ONLY.includes(a))) {
    const found = findAgent(agent);
    if ('missing' in found) {
      process.stdout.write(`${agent}: skipped, ${found.missing}\n`);
      continue;
    }
    await benchAgent(agent);
  }
}
