/**
 * `clippy mcp` as an agent uses it (the real CLI process, driven by an MCP client of the
 * protocol's SDK over stdio): how long it takes to answer `initialize` after the agent starts
 * it, and an `ask`'s round trip with a fake line agent and a fake TUI. Baselines measured in the
 * same run: `clippy ls` (a command's start and one request), and the same question as `clippy
 * ask` puts it over the daemon's socket (list_turns, send, wait_turn) without MCP.
 */
import { spawn } from 'node:child_process';
import type { ClippyClient } from '@clippy/client';
import { bins } from '@clippy/testkit/paths';
import { McpProcess } from '../../packages/mcp/src/test-support/mcp-process.js';
import { TestDaemon, fmt, percentile, spawnAgent } from './_turns-common.js';

/** Starts measured (each a new `clippy mcp` process), and asks measured per agent. */
const STARTS = 8;
const ASKS = 15;
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

async function starts(d: TestDaemon): Promise<{ mcp: number[]; ls: number[] }> {
  const mcp: number[] = [];
  const ls: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    ls.push(await wallTime(['ls'], d.env.env));
    const started = performance.now();
    // start() returns once `initialize` is answered.
    const p = await McpProcess.start([], d.env.env);
    mcp.push(performance.now() - started);
    await p.stop();
  }
  return { mcp, ls };
}

async function mcpAsks(d: TestDaemon, kind: 'aider' | 'claude'): Promise<number[]> {
  const name = `mcp-${kind}`;
  const p = await McpProcess.start([], d.env.env);
  try {
    const c = await d.connect();
    await spawnAgent(d, c, name, kind, kind, ['--delay', String(DELAY_MS)]);
    await c.close();
    const times: number[] = [];
    for (let i = 0; i < ASKS; i++) {
      const started = performance.now();
      const r = await p.call('ask', { session: name, text: `question ${i}` });
      if (r.isError) throw new Error(JSON.stringify(r.content));
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await p.stop();
  }
}

async function socketAsks(
  d: TestDaemon,
  c: ClippyClient,
  kind: 'aider' | 'claude',
): Promise<number[]> {
  const name = `direct-${kind}`;
  await spawnAgent(d, c, name, kind, kind, ['--delay', String(DELAY_MS)]);
  const times: number[] = [];
  for (let i = 0; i < ASKS; i++) {
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
    process.stdout.write(line('clippy mcp: start to initialize answered', s.mcp, s.ls));
    for (const kind of ['aider', 'claude'] as const) {
      const base = await socketAsks(d, c, kind);
      const mcp = await mcpAsks(d, kind);
      process.stdout.write(line(`${kind}: send + wait_turn on the socket (baseline)`, base));
      process.stdout.write(line(`${kind}: ask through clippy mcp`, mcp, base));
    }
    await c.close();
  } finally {
    await d.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
