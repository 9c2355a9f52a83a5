/**
 * Throughput: `cat` of a 64 MB text file inside a clippy session with one attached client
 * (the client library, reading everything and acknowledging), against the same file through
 * node-pty directly and through a tmux pane with an attached tmux client, in one run.
 * Prints MB/s and ratios; asserts nothing. Needs `npm run build` (uses the built daemon).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pty from 'node-pty';
import { ACK_INTERVAL_BYTES } from '@clippy/protocol';
import { TestDaemon } from '@clippy/testkit/daemon';
import { threadCpu, threadCpuDelta } from './_threads.js';
import { MarkerWatcher, isMain, mb, processCpuSeconds, tempDir, writeTextFile } from './_common.js';

/** Size of the file: large enough that start-up costs vanish, small enough for a 2-core box. */
const FILE_BYTES = 64 * 1024 * 1024;
const COLS = 200;
const ROWS = 50;
/** Printed after the file; the command line shows it split by quotes, so only the output matches. */
const MARKER = '__BENCH_DONE__';
const COMMAND = (file: string) => `cat ${file}; echo __BENCH_""DONE__\r`;
/**
 * Printed after the warm-up file. Each variant first cats WARM_BYTES untimed: the daemon runs
 * for days, so what a user waits for is a warm one, not V8 compiling its hot paths (measured:
 * about 0.6 s of JIT work on V8's threads in a fresh daemon's first flood).
 */
const WARM_MARKER = '__WARM_DONE__';
const WARM_COMMAND = (file: string) => `cat ${file}; echo __WARM_""DONE__\r`;
const WARM_BYTES = 8 * 1024 * 1024;
/** Give up on one variant after this long. */
const VARIANT_TIMEOUT_MS = 180_000;

const shellEnv = () =>
  ({ ...process.env, PS1: '$ ', TERM: 'xterm-256color' }) as Record<string, string>;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out`)), VARIANT_TIMEOUT_MS);
    }),
  ]);
}

/**
 * Waits for markers in a byte stream, one at a time: the warm-up's, then the measured run's.
 * `bytes` counts what was fed since the current marker was armed.
 */
class Markers {
  private watcher = new MarkerWatcher(Buffer.from(MARKER));
  private resolve: (() => void) | null = null;

  get bytes(): number {
    return this.watcher.bytes;
  }

  arm(marker: string): Promise<void> {
    this.watcher = new MarkerWatcher(Buffer.from(marker));
    return new Promise((r) => (this.resolve = r));
  }

  feed(data: Uint8Array): void {
    if (this.resolve && this.watcher.feed(data)) {
      const r = this.resolve;
      this.resolve = null;
      r();
    }
  }
}

/** Direct node-pty: bash in a PTY, we read everything. */
async function direct(file: string, warm: string): Promise<{ ms: number; cpu: number }> {
  const p = pty.spawn('bash', ['--norc', '--noprofile'], {
    cols: COLS,
    rows: ROWS,
    env: shellEnv(),
  });
  try {
    const markers = new Markers();
    p.onData((d) => markers.feed(Buffer.from(d)));
    await new Promise((r) => setTimeout(r, 300));
    const warmed = markers.arm(WARM_MARKER);
    p.write(WARM_COMMAND(warm));
    await withTimeout(warmed, 'direct node-pty warm-up');
    const done = markers.arm(MARKER);
    const own0 = process.cpuUsage();
    const started = performance.now();
    p.write(COMMAND(file));
    await withTimeout(done, 'direct node-pty');
    const ms = performance.now() - started;
    const own = process.cpuUsage(own0);
    return { ms, cpu: (own.user + own.system) / 1e6 };
  } finally {
    p.kill('SIGKILL');
  }
}

/** clippy: a session in the daemon, one attached client library reading and acking. */
async function clippy(
  file: string,
  warm: string,
): Promise<{
  ms: number;
  bytes: number;
  daemonCpu: number;
  clientCpu: number;
  threads: string;
}> {
  const daemon = await TestDaemon.start();
  try {
    const client = await daemon.connect();
    const { session } = await client.request('spawn', {
      command: 'bash',
      args: ['--norc', '--noprofile'],
      env: shellEnv(),
      cols: COLS,
      rows: ROWS,
    });
    const markers = new Markers();
    let unacked = 0;
    client.on('output', (push) => {
      unacked += push.data.length;
      // Acknowledge as the attach CLI does: every ACK_INTERVAL_BYTES consumed bytes.
      if (unacked >= ACK_INTERVAL_BYTES) {
        client.notify('ack', { session, bytes: unacked });
        unacked = 0;
      }
      markers.feed(push.data);
    });
    await client.request('attach', { session, mode: 'interactive', cols: COLS, rows: ROWS });
    await new Promise((r) => setTimeout(r, 300));
    const warmed = markers.arm(WARM_MARKER);
    await client.request('input', { session, data: Buffer.from(WARM_COMMAND(warm)) });
    await withTimeout(warmed, 'clippy warm-up');
    // Let the turn of the warm-up close, as it would between two commands a user runs.
    await new Promise((r) => setTimeout(r, 300));
    const done = markers.arm(MARKER);
    const cpu0 = processCpuSeconds(daemon.pid);
    const threads0 = threadCpu(daemon.pid);
    const own0 = process.cpuUsage();
    const started = performance.now();
    await client.request('input', { session, data: Buffer.from(COMMAND(file)) });
    await withTimeout(done, 'clippy');
    const ms = performance.now() - started;
    const daemonCpu = processCpuSeconds(daemon.pid) - cpu0;
    const threads = threadCpuDelta(threads0, threadCpu(daemon.pid));
    const own = process.cpuUsage(own0);
    await client.close();
    return {
      ms,
      bytes: markers.bytes,
      daemonCpu,
      clientCpu: (own.user + own.system) / 1e6,
      threads,
    };
  } finally {
    await daemon.stop();
  }
}

/** tmux: a detached server with a 200x50 pane, and a tmux client attached inside node-pty. */
async function tmux(file: string): Promise<number> {
  const sock = `clippy-bench-${process.pid}`;
  const env = shellEnv();
  execFileSync(
    'tmux',
    [
      '-L',
      sock,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      String(COLS),
      '-y',
      String(ROWS),
      'bash --norc --noprofile',
    ],
    { env },
  );
  const client = pty.spawn('tmux', ['-L', sock, 'attach'], { cols: COLS, rows: ROWS, env });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const watcher = new MarkerWatcher(Buffer.from(MARKER));
    const done = new Promise<void>((resolve) => {
      client.onData((d) => {
        if (watcher.feed(Buffer.from(d))) resolve();
      });
    });
    const started = performance.now();
    execFileSync('tmux', ['-L', sock, 'send-keys', `cat ${file}; echo __BENCH_""DONE__`, 'Enter'], {
      env,
    });
    await withTimeout(done, 'tmux');
    return performance.now() - started;
  } finally {
    client.kill('SIGKILL');
    try {
      execFileSync('tmux', ['-L', sock, 'kill-server']);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Rounds of the three variants, interleaved (direct, clippy, tmux, direct, …): the VM's speed
 * drifts by ±40% between minutes, so one run each compares different machines. Medians are
 * compared.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  const tmp = tempDir();
  try {
    const file = path.join(tmp.dir, 'big.txt');
    writeTextFile(file, FILE_BYTES);
    const warm = path.join(tmp.dir, 'warm.txt');
    writeTextFile(warm, WARM_BYTES);
    const size = mb(FILE_BYTES);
    const rate = (ms: number) => size / (ms / 1000);
    process.stdout.write(
      `file: ${size.toFixed(0)} MB of text, terminal ${COLS}x${ROWS}, ${ROUNDS} interleaved rounds\n`,
    );
    const directRuns: Awaited<ReturnType<typeof direct>>[] = [];
    const clippyRuns: Awaited<ReturnType<typeof clippy>>[] = [];
    const tmuxMs: number[] = [];
    let tmuxSkipped: string | null = null;
    for (let round = 1; round <= ROUNDS; round++) {
      directRuns.push(await direct(file, warm));
      const directMs = directRuns.map((d) => d.ms);
      clippyRuns.push(await clippy(file, warm));
      if (tmuxSkipped === null) {
        try {
          tmuxMs.push(await tmux(file));
        } catch (err) {
          tmuxSkipped = (err as Error).message;
        }
      }
      const last = (xs: number[]) => (xs.length ? `${rate(xs.at(-1)!).toFixed(1)}` : '-');
      process.stdout.write(
        `round ${round}: direct ${last(directMs)}, clippy ${last(clippyRuns.map((c) => c.ms))}, tmux ${last(tmuxMs)} MB/s\n`,
      );
    }
    if (tmuxSkipped !== null) process.stdout.write(`tmux: skipped (${tmuxSkipped})\n`);
    const directMs = directRuns.map((d) => d.ms);
    const clippyMs = median(clippyRuns.map((c) => c.ms));
    const rows: [string, number][] = [
      ['node-pty direct', median(directMs)],
      ['clippy (daemon + attached client)', clippyMs],
      ...(tmuxMs.length
        ? ([['tmux (pane + attached client)', median(tmuxMs)]] as [string, number][])
        : []),
    ];
    process.stdout.write('medians:\n');
    for (const [name, ms] of rows) {
      process.stdout.write(
        `${name.padEnd(36)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${rate(ms).toFixed(1).padStart(7)} MB/s\n`,
      );
    }
    process.stdout.write(
      `clippy / direct: ${(rate(clippyMs) / rate(median(directMs))).toFixed(2)}x (target >= 0.8x)\n`,
    );
    if (tmuxMs.length)
      process.stdout.write(
        `clippy / tmux:   ${(rate(clippyMs) / rate(median(tmuxMs))).toFixed(2)}x\n`,
      );
    const c = clippyRuns.find((r) => r.ms === clippyMs)!;
    const d = directRuns.find((r) => r.ms === median(directMs))!;
    process.stdout.write(`median direct run: reader CPU ${d.cpu.toFixed(2)} s\n`);
    process.stdout.write(
      `median clippy run: client received ${mb(c.bytes).toFixed(1)} MB; CPU daemon ${c.daemonCpu.toFixed(2)} s (${c.threads}), client ${c.clientCpu.toFixed(2)} s\n`,
    );
  } finally {
    tmp.remove();
  }
}

if (isMain(import.meta.url)) await run();
