/**
 * `clippy acp` as an editor uses it (the real CLI process, driven by an ACP client of the
 * protocol's SDK): how long it takes to answer `initialize` after the editor starts it, and a
 * prompt's round trip to `end_turn` with a fake line agent and a fake TUI. Baselines measured in
 * the same run: `clippy ls` (a command's start and one request), and the same prompt as
 * `clippy ask` does it over the daemon's socket (list_turns, send, wait_turn) without ACP.
 */
import { spawn } from 'node:child_process';
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { bins } from '@clippy/testkit/paths';
import { AcpProcess } from '../../packages/acp/src/test-support/acp-process.js';
import { TestDaemon, fmt, percentile, spawnAgent } from './_turns-common.js';

/** Starts measured (each a new `clippy acp` process), and prompts measured per agent. */
const STARTS = 8;
const PROMPTS = 15;
/** The fake agents answer after this think time: small, so the path itself shows. */
const DELAY_MS = 5;

function wallTime(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bins.clippy, ...args], { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

async function starts(d: TestDaemon): Promise<{ acp: number[]; ls: number[] }> {
  const acp: number[] = [];
  const ls: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    ls.push(await wallTime(['ls'], d.env.env));
    const started = performance.now();
    const p = AcpProcess.start(['--', 'sh'], d.env.env);
    await p.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION });
    acp.push(performance.now() - started);
    await p.stop();
  }
  return { acp, ls };
}

async function acpPrompts(d: TestDaemon, kind: 'aider' | 'claude'): Promise<number[]> {
  const { command, args } = agentCommand(kind, ['--delay', String(DELAY_MS)]);
  const p = AcpProcess.start(['--preset', kind, '--', command, ...args], d.env.env);
  try {
    await p.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION });
    const { sessionId } = await p.agent.request(methods.agent.session.new, {
      cwd: d.env.root,
      mcpServers: [],
    });
    const times: number[] = [];
    for (let i = 0; i < PROMPTS; i++) {
      const started = performance.now();
      await p.prompt(sessionId, `question ${i}`);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await p.stop();
  }
}

async function socketPrompts(
  d: TestDaemon,
  c: ClippyClient,
  kind: 'aider' | 'claude',
): Promise<number[]> {
  const name = `direct-${kind}`;
  await spawnAgent(d, c, name, kind, kind, ['--delay', String(DELAY_MS)]);
  const times: number[] = [];
  for (let i = 0; i < PROMPTS; i++) {
    const started = performance.now();
    const { turns } = await c.request('list_turns', { session: name, limit: 1 });
    await c.request('send', { session: name, text: `question ${i}`, enter: true, complete: true });
    await c.request(
      'wait_turn',
      { session: name, after: turns[0]?.turn_id ?? `${name}:0` },
      { timeoutMs: 0 },
    );
    times.push(performance.now() - started);
  }
  return times;
}

const line = (what: string, xs: number[], base?: number[]): string =>
  `${what}: p50 ${fmt(percentile(xs, 50))}  p99 ${fmt(percentile(xs, 99))}` +
  (base
    ? `  (${(percentile(xs, 50) / percentile(base, 50)).toFixed(2)}× the baseline's p50)`
    : '') +
  '\n';

export async function run(): Promise<void> {
  const d = await TestDaemon.start();
  try {
    const c = await d.connect();
    const s = await starts(d);
    process.stdout.write(line('clippy ls (baseline)', s.ls));
    process.stdout.write(line('clippy acp: start to initialize answered', s.acp, s.ls));
    for (const kind of ['aider', 'claude'] as const) {
      const base = await socketPrompts(d, c, kind);
      const acp = await acpPrompts(d, kind);
      process.stdout.write(line(`${kind}: send + wait_turn on the socket (baseline)`, base));
      process.stdout.write(
        line(`${kind}: session/prompt to end_turn through clippy acp`, acp, base),
      );
    }
    await c.close();
  } finally {
    await d.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
