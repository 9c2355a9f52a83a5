/**
 * Throughput: `cat` of a 64 MB text file inside a clippy session with one attached client
 * (the client library, reading everything and acknowledging), against the same file through
 * node-pty directly and through a tmux pane with an attached tmux client, in one run.
 * Prints MB/s and ratios; asserts nothing. Needs `npm run build` (uses the built daemon).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pty from 'node-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { MarkerWatcher, isMain, mb, processCpuSeconds, tempDir, writeTextFile } from './_common.js';

/** Size of the file: large enough that start-up costs vanish, small enough for a 2-core box. */
const FILE_BYTES = 64 * 1024 * 1024;
const COLS = 200;
const ROWS = 50;
/** Printed after the file; the command line shows it split by quotes, so only the output matches. */
const MARKER = '__BENCH_DONE__';
const COMMAND = (file: string) => `cat ${file}; echo __BENCH_""DONE__\r`;
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

/** Direct node-pty: bash in a PTY, we read everything. */
async function direct(file: string): Promise<number> {
  const p = pty.spawn('bash', ['--norc', '--noprofile'], {
    cols: COLS,
    rows: ROWS,
    env: shellEnv(),
  });
  try {
    await new Promise((r) => setTimeout(r, 300));
    const watcher = new MarkerWatcher(Buffer.from(MARKER));
    const started = performance.now();
    await withTimeout(
      new Promise<void>((resolve) => {
        p.onData((d) => {
          if (watcher.feed(Buffer.from(d))) resolve();
        });
        p.write(COMMAND(file));
      }),
      'direct node-pty',
    );
    return performance.now() - started;
  } finally {
    p.kill('SIGKILL');
  }
}

/** clippy: a session in the daemon, one attached client library reading and acking. */
async function clippy(
  file: string,
): Promise<{ ms: number; bytes: number; daemonCpu: number; clientCpu: number }> {
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
    const watcher = new MarkerWatcher(Buffer.from(MARKER));
    let unacked = 0;
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    client.on('output', (push) => {
      unacked += push.data.length;
      // Acknowledge as the attach CLI does: every 5,000 consumed bytes.
      if (unacked >= 5_000) {
        client.notify('ack', { session, bytes: unacked });
        unacked = 0;
      }
      if (watcher.feed(push.data)) resolveDone();
    });
    await client.request('attach', { session, mode: 'interactive', cols: COLS, rows: ROWS });
    await new Promise((r) => setTimeout(r, 300));
    const cpu0 = processCpuSeconds(daemon.pid);
    const own0 = process.cpuUsage();
    const started = performance.now();
    await client.request('input', { session, data: Buffer.from(COMMAND(file)) });
    await withTimeout(done, 'clippy');
    const ms = performance.now() - started;
    const daemonCpu = processCpuSeconds(daemon.pid) - cpu0;
    const own = process.cpuUsage(own0);
    await client.close();
    return { ms, bytes: watcher.bytes, daemonCpu, clientCpu: (own.user + own.system) / 1e6 };
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

export async function run(): Promise<void> {
  const tmp = tempDir();
  try {
    const file = path.join(tmp.dir, 'big.txt');
    writeTextFile(file, FILE_BYTES);
    const size = mb(FILE_BYTES);
    process.stdout.write(`file: ${size.toFixed(0)} MB of text, terminal ${COLS}x${ROWS}\n`);
    const directMs = await direct(file);
    const c = await clippy(file);
    let tmuxMs: number | null = null;
    try {
      tmuxMs = await tmux(file);
    } catch (err) {
      process.stdout.write(`tmux: skipped (${(err as Error).message})\n`);
    }
    const rate = (ms: number) => size / (ms / 1000);
    const rows: [string, number][] = [
      ['node-pty direct', directMs],
      ['clippy (daemon + attached client)', c.ms],
      ...(tmuxMs !== null
        ? ([['tmux (pane + attached client)', tmuxMs]] as [string, number][])
        : []),
    ];
    for (const [name, ms] of rows) {
      process.stdout.write(
        `${name.padEnd(36)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${rate(ms).toFixed(1).padStart(7)} MB/s\n`,
      );
    }
    process.stdout.write(
      `clippy / direct: ${(rate(c.ms) / rate(directMs)).toFixed(2)}x (target >= 0.8x)\n`,
    );
    if (tmuxMs !== null)
      process.stdout.write(`clippy / tmux:   ${(rate(c.ms) / rate(tmuxMs)).toFixed(2)}x\n`);
    process.stdout.write(
      `clippy client received ${mb(c.bytes).toFixed(1)} MB; CPU during the clippy run: daemon ${c.daemonCpu.toFixed(2)} s, client ${c.clientCpu.toFixed(2)} s\n`,
    );
  } finally {
    tmp.remove();
  }
}

if (isMain(import.meta.url)) await run();
