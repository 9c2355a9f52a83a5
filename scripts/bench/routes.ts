/**
 * `npm run bench -- routes`: from a source's turn completing to the target receiving the text
 * and its Enter, through a route (the daemon injects by itself) and through the fastest manual
 * path (`clippy wait SRC` returns, then `clippy relay SRC DST` at once, both real CLI
 * processes), in one run. p50/p99 and the ratio; asserts nothing. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import type { ClippyClient } from '@clippy/client';
import { submissionTimes } from '@clippy/testkit/agents/harness';
import { bins } from '@clippy/testkit/paths';
import { TestDaemon, fmt, nowHr, percentile, spawnAgent, waitState } from './_turns-common.js';

/** Hand-overs measured per path. */
const HANDOVERS = 15;
/**
 * The sources think this long before answering, as an agent does: a `clippy wait` started with
 * the question is waiting well before the turn completes (it waits for the turn after the
 * newest one it sees when it asks).
 */
const SOURCE_THINK_MS = 1_000;
/** Longest a single hand-over may take before the run gives up. */
const HANDOVER_TIMEOUT_MS = 30_000;

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bins.clippy, ...args], { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

/** Resolves with the time (epoch ms, hr) of the next turn_completed push of `session`. */
function nextTurnAt(c: ClippyClient, session: string): Promise<number> {
  return new Promise((resolve) => {
    const off = c.on('turn_completed', (p) => {
      if (p.name !== session) return;
      off();
      resolve(nowHr());
    });
  });
}

async function waitSubmissions(log: string, n: number): Promise<number> {
  const deadline = Date.now() + HANDOVER_TIMEOUT_MS;
  for (;;) {
    const times = submissionTimes(log);
    if (times.length >= n) return times[n - 1]!;
    if (Date.now() > deadline) throw new Error(`the target did not receive submission ${n}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Waits until the daemon counts exactly `n` connections. */
async function clientsAre(c: ClippyClient, n: number): Promise<void> {
  const deadline = Date.now() + HANDOVER_TIMEOUT_MS;
  while ((await c.request('daemon_status', {})).clients !== n) {
    if (Date.now() > deadline) throw new Error(`the daemon never counted ${n} connections`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function run(): Promise<void> {
  const d = await TestDaemon.start();
  try {
    const c = await d.connect();
    await c.request('subscribe', { events: ['turn_completed'] });
    const routed: number[] = [];
    const manual: number[] = [];
    // Two pairs, one per path, so each target's log counts only its own hand-overs.
    await spawnAgent(d, c, 'src1', 'aider', 'aider', ['--delay', String(SOURCE_THINK_MS)]);
    const dst1 = await spawnAgent(d, c, 'dst1', 'claude', 'claude', ['--delay', '5']);
    await spawnAgent(d, c, 'src2', 'aider', 'aider', ['--delay', String(SOURCE_THINK_MS)]);
    const dst2 = await spawnAgent(d, c, 'dst2', 'claude', 'claude', ['--delay', '5']);
    await c.request('add_route', { from: ['src1'], to: 'dst1' });
    for (let i = 1; i <= HANDOVERS; i++) {
      // Interleaved: the machine's state changes alike for both paths.
      await waitState(c, 'dst1', 'idle', HANDOVER_TIMEOUT_MS);
      const done1 = nextTurnAt(c, 'src1');
      await c.request('send', { session: 'src1', text: `routed ${i}`, enter: true });
      const t1 = await done1;
      routed.push((await waitSubmissions(dst1, i)) - t1);

      await waitState(c, 'dst2', 'idle', HANDOVER_TIMEOUT_MS);
      // The previous round's CLI connections are closed, so the count below is the new wait's.
      await clientsAre(c, 1);
      const waiting = runCli(['wait', 'src2', '--timeout', '30'], d.env.env).then(async (w) => {
        const r = await runCli(['relay', 'src2', 'dst2'], d.env.env);
        if (w !== 0 || r !== 0)
          throw new Error(`manual path failed: wait exit ${w}, relay exit ${r}`);
      });
      // `clippy wait` must be waiting before the turn is made: its connection is up.
      await clientsAre(c, 2);
      const done2 = nextTurnAt(c, 'src2');
      await c.request('send', { session: 'src2', text: `manual ${i}`, enter: true });
      const t2 = await done2;
      manual.push((await waitSubmissions(dst2, i)) - t2);
      await waiting;
    }
    routed.sort((a, b) => a - b);
    manual.sort((a, b) => a - b);
    const line = (name: string, s: number[]) =>
      `${name.padEnd(44)} p50 ${fmt(percentile(s, 50))}   p99 ${fmt(percentile(s, 99))}\n`;
    process.stdout.write(
      `${HANDOVERS} hand-overs each, turn completed -> target received the text\n`,
    );
    process.stdout.write(line('route (the daemon injects)', routed));
    process.stdout.write(line('manual: clippy wait, then clippy relay', manual));
    process.stdout.write(
      `route is ${(percentile(manual, 50) / percentile(routed, 50)).toFixed(1)}x faster at p50, ` +
        `${(percentile(manual, 99) / percentile(routed, 99)).toFixed(1)}x at p99\n`,
    );
    await c.close();
  } finally {
    await d.stop();
  }
}
