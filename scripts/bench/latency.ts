/**
 * Keystroke echo latency: one byte in, its echo out, 1,000 times in a row, through clippy
 * (client library -> daemon -> PTY -> program -> PTY -> daemon -> client), through the real
 * `clippy attach` running in a PTY (one more terminal hop, as a user has), and through node-pty
 * directly (the baseline). The program is `cat` with the terminal in raw mode, so the echo
 * comes from a process, as with an agent. Prints p50/p99; asserts nothing. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import pty from 'node-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { isMain, percentile, tempDir } from './_common.js';

const require = createRequire(import.meta.url);

/** Keystrokes per variant: enough for a stable p99. */
const KEYSTROKES = 1_000;
/** Warm-up keystrokes not counted (JIT, first allocation). */
const WARMUP = 50;
/** The echoing program: raw mode so each byte reaches cat at once, no tty echo. */
const ECHO_PROGRAM = ['sh', '-c', 'stty raw -echo; echo READY; exec cat'];
/** Give up waiting for one echo after this long. */
const ECHO_TIMEOUT_MS = 5_000;

type Sender = (byte: string) => void;

/**
 * Types into a PTY as a terminal emulator does: one write on the master. node-pty's own write
 * goes through libuv's thread pool, a hand-off that is the harness's, not the measured path's.
 */
function typeKey(p: pty.IPty, key: string): void {
  writeSync((p as unknown as { fd: number }).fd, key);
}

/** Measures round trips: send one byte, wait until it comes back, repeat. */
async function measure(
  send: Sender,
  subscribe: (onData: (s: string) => void) => void,
): Promise<number[]> {
  let waiting: ((t: number) => void) | null = null;
  subscribe((s) => {
    if (waiting && s.includes('x')) {
      const w = waiting;
      waiting = null;
      w(performance.now());
    }
  });
  const samples: number[] = [];
  for (let i = 0; i < KEYSTROKES + WARMUP; i++) {
    const started = performance.now();
    const echoed = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('echo timed out')), ECHO_TIMEOUT_MS);
      waiting = (t) => {
        clearTimeout(timer);
        resolve(t);
      };
    });
    send('x');
    const t = await echoed;
    if (i >= WARMUP) samples.push(t - started);
  }
  return samples.sort((a, b) => a - b);
}

function waitText(subscribe: (cb: (s: string) => void) => void, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    subscribe((s) => {
      seen += s;
      if (seen.includes(text)) resolve();
    });
  });
}

async function direct(): Promise<number[]> {
  const p = pty.spawn(ECHO_PROGRAM[0]!, ECHO_PROGRAM.slice(1), { cols: 80, rows: 24 });
  try {
    await waitText((cb) => p.onData(cb), 'READY');
    return await measure(
      (b) => typeKey(p, b),
      (cb) => p.onData(cb),
    );
  } finally {
    p.kill('SIGKILL');
  }
}

/**
 * The floor of any broker on this machine: a second process that only relays bytes between a
 * Unix socket and a PTY running the same echo program (no framing, no screen model, no
 * detection). What clippy adds is measured against this, not only against direct node-pty.
 */
const MINIMAL_RELAY = `
const pty = require(process.argv[1]);
const net = require('node:net');
const fs = require('node:fs');
const p = pty.spawn(${JSON.stringify(ECHO_PROGRAM[0])}, ${JSON.stringify(ECHO_PROGRAM.slice(1))}, { cols: 80, rows: 24, encoding: null });
let client = null;
p.onData((d) => client && client.write(d));
net.createServer((c) => { client = c; c.on('data', (d) => fs.writeSync(p.fd, d)); })
  .listen(process.argv[2], () => process.stdout.write('listening\\n'));
`;

async function viaMinimalRelay(): Promise<number[]> {
  const tmp = tempDir();
  const sock = path.join(tmp.dir, 'relay.sock');
  const relay = spawn(process.execPath, ['-e', MINIMAL_RELAY, require.resolve('node-pty'), sock], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      relay.stdout.on('data', (d: Buffer) => d.includes('listening') && resolve());
      relay.once('exit', (code) => reject(new Error(`minimal relay exited (${code})`)));
    });
    const socket = net.connect(sock);
    await new Promise((r) => socket.once('connect', r));
    // The program printed READY before we connected; give it a moment to reach `cat`.
    await new Promise((r) => setTimeout(r, 300));
    try {
      return await measure(
        (b) => socket.write(b),
        (cb) => socket.on('data', (d: Buffer) => cb(d.toString('latin1'))),
      );
    } finally {
      socket.destroy();
    }
  } finally {
    relay.kill('SIGKILL');
    tmp.remove();
  }
}

async function viaClient(daemon: TestDaemon, session: string): Promise<number[]> {
  const client = await daemon.connect();
  try {
    const subscribe = (cb: (s: string) => void) =>
      client.on('output', (o) => cb(Buffer.from(o.data).toString('latin1')));
    const ready = waitText(subscribe, 'READY');
    await client.request('attach', { session, mode: 'interactive', cols: 80, rows: 24 });
    await client.request('input', { session, data: Buffer.from('\r') });
    await Promise.race([ready, new Promise((r) => setTimeout(r, 500))]);
    return await measure(
      // As `clippy attach` sends keystrokes: notifications, no response per key.
      (b) => client.notify('input', { session, data: Buffer.from(b) }),
      subscribe,
    );
  } finally {
    await client.close();
  }
}

async function viaAttachCli(daemon: TestDaemon, session: string): Promise<number[]> {
  const p = pty.spawn(process.execPath, [bins.clippy, 'attach', session], {
    cols: 80,
    rows: 24,
    env: daemon.env.env as Record<string, string>,
  });
  try {
    // The replay shows READY (printed when the session started).
    await waitText((cb) => p.onData(cb), 'READY');
    await new Promise((r) => setTimeout(r, 200));
    return await measure(
      (b) => typeKey(p, b),
      (cb) => p.onData(cb),
    );
  } finally {
    p.write('\x1d');
    await new Promise((r) => setTimeout(r, 100));
    p.kill('SIGKILL');
  }
}

export async function run(): Promise<void> {
  const line = (name: string, s: number[]) =>
    `${name.padEnd(34)} p50 ${percentile(s, 50).toFixed(3)} ms   p99 ${percentile(s, 99).toFixed(3)} ms   max ${s[s.length - 1]!.toFixed(3)} ms\n`;
  process.stdout.write(`${KEYSTROKES} keystrokes each, echoed by \`cat\` in raw mode\n`);
  const d = await direct();
  process.stdout.write(line('node-pty direct', d));
  const m = await viaMinimalRelay();
  process.stdout.write(line('minimal relay (socket <-> PTY)', m));
  const daemon = await TestDaemon.start();
  try {
    const c0 = await daemon.connect();
    const { session } = await c0.request('spawn', {
      command: ECHO_PROGRAM[0]!,
      args: ECHO_PROGRAM.slice(1),
    });
    await c0.close();
    const c = await viaClient(daemon, session);
    process.stdout.write(line('clippy (client library)', c));
    const a = await viaAttachCli(daemon, session);
    process.stdout.write(line('clippy attach (CLI in a PTY)', a));
    process.stdout.write(
      `p99 added by clippy over direct: client ${(percentile(c, 99) - percentile(d, 99)).toFixed(3)} ms, ` +
        `attach CLI ${(percentile(a, 99) - percentile(d, 99)).toFixed(3)} ms (target: p99 <= 2 ms)\n`,
    );
    process.stdout.write(
      `ratio p50 client/direct: ${(percentile(c, 50) / percentile(d, 50)).toFixed(2)}x\n`,
    );
    process.stdout.write(
      `p99 added by clippy over the minimal relay: client ${(percentile(c, 99) - percentile(m, 99)).toFixed(3)} ms, ` +
        `attach CLI ${(percentile(a, 99) - percentile(m, 99)).toFixed(3)} ms\n`,
    );
  } finally {
    await daemon.stop();
  }
}

if (isMain(import.meta.url)) await run();
