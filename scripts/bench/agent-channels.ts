/**
 * Agent channels: the time from the fake model's last byte of an answer to `turn_completed` at
 * a subscriber, through each real agent CLI (Claude Code, Codex, Gemini CLI: the pinned
 * versions, skipped when not installed), with the agent's channel (its hooks, rollout or chat
 * file joined to the screen's turn) and without it (the screen alone: the baseline, measured
 * in the same run). p50/p99 over BENCH_ASKS asks each (default 10; BENCH_AGENTS=gemini,codex
 * measures only those). A turn completed before the model's last byte is counted apart, and an
 * ask that fails ends that session's series with what it measured printed. Measures, never
 * asserts.
 */
import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';
import { TestDaemon } from '@clippy/testkit/daemon';
import { startFakeModel, type FakeModel } from '@clippy/testkit/fake-model/server';
import { MARKDOWN_ANSWERS, answerFor, askFor } from '@clippy/testkit/markdown-answers';
import {
  AGENT_API,
  REAL_AGENTS,
  agentsMissing,
  prepareAgent,
  type RealAgentName,
} from '@clippy/testkit/real-agents';
import { percentile } from './_common.js';

const ASKS = Number(process.env.BENCH_ASKS ?? 10);
/** The agents measured: BENCH_AGENTS (comma-separated names), else all three. */
const AGENTS = (process.env.BENCH_AGENTS?.split(',') ?? REAL_AGENTS).filter(
  (a): a is RealAgentName => (REAL_AGENTS as readonly string[]).includes(a),
);
/** A real agent starting on a loaded machine; one answer through it. */
const START_MS = 120_000;
const TURN_MS = 90_000;
async function waitIdle(c: ClippyClient, name: string): Promise<void> {
  const deadline = Date.now() + START_MS;
  for (;;) {
    const { sessions } = await c.request('list_sessions', {});
    if (sessions.find((s) => s.name === name)?.state === 'idle') return;
    if (Date.now() > deadline) throw new Error(`${name} never became idle`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What one session of an agent gave: its latencies and how its turns compared. */
interface Measured {
  /** Last model byte → turn_completed (ms), of the turns completed after the model answered. */
  lat: number[];
  /** Turns whose text was the model's Markdown exactly. */
  exact: number;
  /** Turns completed before the model's last byte (the screen ended them early). */
  early: number;
  /** Asks made (fewer than ASKS when one failed). */
  asks: number;
  /** Why the asks stopped early. */
  failed?: string;
}

/** The next `turn_completed` of session `name`; `cancel` stops waiting (nothing is left armed). */
function nextTurn(c: ClippyClient, name: string) {
  let cancel = () => {};
  const turn = new Promise<{ at: number; turn: Push<'turn_completed'>['turn'] }>(
    (resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`${name}: no turn within ${TURN_MS} ms`));
      }, TURN_MS);
      const off = c.on('turn_completed', (m: Push<'turn_completed'>) => {
        if (m.name !== name) return;
        clearTimeout(timer);
        off();
        resolve({ at: performance.now(), turn: m.turn });
      });
      cancel = () => {
        clearTimeout(timer);
        off();
      };
    },
  );
  return { turn, cancel };
}

/** `ASKS` answers through one session of `agent`; an ask that fails ends the series. */
async function measure(
  c: ClippyClient,
  model: FakeModel,
  agent: RealAgentName,
  channel: boolean,
): Promise<Measured> {
  const setup = prepareAgent(agent, model);
  const name = `${agent}-${channel ? 'channel' : 'screen'}`;
  const m: Measured = { lat: [], exact: 0, early: 0, asks: 0 };
  try {
    await c.request('spawn', {
      command: setup.command,
      args: setup.args,
      env: setup.env,
      cwd: setup.cwd,
      name,
      preset: setup.preset,
      cols: 100,
      rows: 30,
      agent_channel: channel,
    });
    await waitIdle(c, name);
    const keys = Object.keys(MARKDOWN_ANSWERS).filter((k) => k !== 'tall');
    for (let i = 0; i < ASKS; i++) {
      const key = keys[i % keys.length]!;
      const since = model.requests.length;
      const next = nextTurn(c, name);
      try {
        await c.request(
          'send',
          { session: name, text: askFor(key), enter: true },
          { timeoutMs: TURN_MS },
        );
      } catch (err) {
        next.cancel();
        throw err;
      }
      const { at, turn } = await next.turn;
      const req = await model.waitFor(
        (r) => r.api === AGENT_API[agent] && r.conversation && answerFor(r.userText) !== undefined,
        { since, answered: true, timeoutMs: TURN_MS },
      );
      m.asks++;
      // A turn completed before the model even answered is no latency: said apart.
      if (at < req.answeredAt!) m.early++;
      else m.lat.push(at - req.answeredAt!);
      const full = (await c.request('get_turn', { turn_id: turn.turn_id })).turn;
      if (full.text === MARKDOWN_ANSWERS[key]) m.exact++;
    }
  } catch (err) {
    m.failed = (err as Error).message;
  } finally {
    await c.request('kill', { session: name, signal: 'SIGKILL', remove: true }).catch(() => {});
    setup.dispose();
  }
  return m;
}

const ms = (v: number) => `${v.toFixed(0)} ms`;

export async function run(): Promise<void> {
  for (const agent of AGENTS) {
    const missing = agentsMissing(agent);
    if (missing) {
      process.stdout.write(`${agent}: ${missing}\n`);
      continue;
    }
    const model = await startFakeModel({
      respond: (req) => {
        const text = answerFor(req.userText);
        return text !== undefined ? { kind: 'text', text } : undefined;
      },
    });
    const d = await TestDaemon.start();
    const c = await d.connect();
    try {
      await c.request('subscribe', { events: ['turn_completed'] });
      const rows: Record<string, { p50: number; p99: number; m: Measured }> = {};
      for (const channel of [true, false]) {
        const kind = channel ? 'channel' : 'screen';
        const m = await measure(c, model, agent, channel);
        const sorted = [...m.lat].sort((a, b) => a - b);
        rows[kind] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99), m };
        const early = m.early > 0 ? `; completed before the model answered: ${m.early}` : '';
        process.stdout.write(
          `${agent.padEnd(7)} ${kind.padEnd(8)} last model byte → turn_completed: p50 ${ms(rows[kind].p50)}  p99 ${ms(rows[kind].p99)}  (${m.asks} asks; Markdown exact ${m.exact}/${m.asks}${early})\n`,
        );
        if (m.failed)
          process.stdout.write(
            `${agent.padEnd(7)} ${kind.padEnd(8)} FAILED after ${m.asks} asks: ${m.failed}\n`,
          );
      }
      if (rows.channel?.m.lat.length && rows.screen?.m.lat.length)
        process.stdout.write(
          `${agent.padEnd(7)} channel ÷ screen: p50 ${(rows.channel.p50 / rows.screen.p50).toFixed(2)}×  p99 ${(rows.channel.p99 / rows.screen.p99).toFixed(2)}×\n`,
        );
    } finally {
      await c.close();
      await d.stop();
      await model.close();
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
