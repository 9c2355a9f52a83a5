/**
 * Agent channels: the time from the fake model's last byte of an answer to `turn_completed` at
 * a subscriber, through each real agent CLI (Claude Code, Codex, Gemini CLI: the pinned
 * versions, skipped when not installed), with the agent's channel (its hooks, notify or chat
 * file joined to the screen's turn) and without it (the screen alone: the baseline, measured
 * in the same run). p50/p99 over BENCH_ASKS asks each (default 10). Measures, never asserts.
 */
import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';
import { TestDaemon } from '@clippy/testkit/daemon';
import { startFakeModel, type FakeModel } from '@clippy/testkit/fake-model/server';
import { MARKDOWN_ANSWERS, answerFor, askFor } from '@clippy/testkit/markdown-answers';
import {
  REAL_AGENTS,
  agentsMissing,
  prepareAgent,
  type RealAgentName,
} from '@clippy/testkit/real-agents';
import { percentile } from './_common.js';

const ASKS = Number(process.env.BENCH_ASKS ?? 10);
/** A real agent starting on a loaded machine; one answer through it. */
const START_MS = 120_000;
const TURN_MS = 90_000;
const API = { claude: 'anthropic', codex: 'openai', gemini: 'gemini' } as const;

async function waitIdle(c: ClippyClient, name: string): Promise<void> {
  const deadline = Date.now() + START_MS;
  for (;;) {
    const { sessions } = await c.request('list_sessions', {});
    if (sessions.find((s) => s.name === name)?.state === 'idle') return;
    if (Date.now() > deadline) throw new Error(`${name} never became idle`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Latencies (ms) of `ASKS` answers through one session of `agent`. */
async function measure(
  d: TestDaemon,
  c: ClippyClient,
  model: FakeModel,
  agent: RealAgentName,
  channel: boolean,
): Promise<{ lat: number[]; exact: number }> {
  const setup = prepareAgent(agent, model);
  const name = `${agent}-${channel ? 'channel' : 'screen'}`;
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
    const lat: number[] = [];
    let exact = 0;
    const keys = Object.keys(MARKDOWN_ANSWERS).filter((k) => k !== 'tall');
    for (let i = 0; i < ASKS; i++) {
      const key = keys[i % keys.length]!;
      const since = model.requests.length;
      const done = new Promise<{ at: number; turn: Push<'turn_completed'>['turn'] }>(
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
        },
      );
      await c.request(
        'send',
        { session: name, text: askFor(key), enter: true },
        { timeoutMs: TURN_MS },
      );
      const { at, turn } = await done;
      const req = await model.waitFor(
        (r) => r.api === API[agent] && r.conversation && answerFor(r.userText) !== undefined,
        { since, answered: true, timeoutMs: TURN_MS },
      );
      lat.push(at - req.answeredAt!);
      const full = (await c.request('get_turn', { turn_id: turn.turn_id })).turn;
      if (full.text === MARKDOWN_ANSWERS[key]) exact++;
    }
    await c.request('kill', { session: name, signal: 'SIGKILL', remove: true });
    return { lat, exact };
  } finally {
    setup.dispose();
  }
}

const ms = (v: number) => `${v.toFixed(0)} ms`;

export async function run(): Promise<void> {
  for (const agent of REAL_AGENTS) {
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
      const rows: Record<string, { p50: number; p99: number; exact: number; n: number }> = {};
      for (const channel of [true, false]) {
        try {
          const { lat, exact } = await measure(d, c, model, agent, channel);
          const sorted = [...lat].sort((a, b) => a - b);
          rows[channel ? 'channel' : 'screen'] = {
            p50: percentile(sorted, 50),
            p99: percentile(sorted, 99),
            exact,
            n: lat.length,
          };
        } catch (err) {
          process.stdout.write(
            `${agent} ${channel ? 'channel' : 'screen'}: FAILED ${(err as Error).message}\n`,
          );
        }
      }
      for (const [kind, r] of Object.entries(rows))
        process.stdout.write(
          `${agent.padEnd(7)} ${kind.padEnd(8)} last model byte → turn_completed: p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  (${r.n} asks; Markdown exact ${r.exact}/${r.n})\n`,
        );
      if (rows.channel && rows.screen)
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
