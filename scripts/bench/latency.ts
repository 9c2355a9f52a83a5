/**
 * Keystroke echo latency as a user feels it: one key typed into a terminal, wait for its echo
 * on that terminal, repeat. The program is `cat` with its terminal in raw mode, so the echo
 * comes from a process, as with an agent. Paths:
 * - `clippy attach` running in a PTY: direct (clippyd reads and writes that PTY itself), and
 *   relayed (CLIPPY_ATTACH_RELAY=1: terminal ↔ clippy attach ↔ clippyd ↔ the session's PTY),
 * - `tmux attach` running in a PTY, attached to a pane of a private tmux server (the baseline),
 * - the program in node-pty directly (the machine's floor),
 * - and, as second lines, the client library in this process (no attach process, no outer
 *   terminal), a minimal relay (a second process relaying bytes between a socket and a PTY,
 *   with no framing: the floor of any broker) and a minimal terminal relay (one Node process in
 *   the outer PTY relaying its terminal to the program's PTY, nothing else: the floor of direct
 *   attach's topology, terminal ↔ one Node process ↔ PTY, for any Node daemon).
 * The benchmark types into each outer PTY as a terminal emulator would. Variants run
 * interleaved, BENCH_KEYS keystrokes each per round for BENCH_ROUNDS rounds, after an uncounted
 * warm-up. Prints p50/p99 and the ratios to tmux; asserts nothing. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import type { ClippyClient } from '@clippy/client';
import { isMain, loadAverage, percentile, tempDir } from './_common.js';
import { onInterrupt } from './_interrupt.js';
import { ClippyHost, Term, TmuxHost, cpuOf, otherCheckouts } from './_terminals.js';

const require = createRequire(import.meta.url);

/** Keystrokes per variant per round; rounds interleave the variants (the VM's speed drifts). */
const KEYS_PER_ROUND = Number(process.env.BENCH_KEYS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * A typist's pause after each echo before the next key (0: back to back). With pauses the
 * daemon's deferred work for a key (detection, the screen model) runs between keys, as it does
 * for a person typing; back to back it overlaps the next key's path.
 */
const KEY_GAP_MS = Number(process.env.BENCH_KEY_GAP_MS ?? 0);
/** Warm-up keystrokes per variant, not counted (JIT, first allocations). */
const WARMUP = 50;
/** The echoing program: raw mode so each byte reaches cat at once, no tty echo. */
const ECHO_SCRIPT = 'stty raw -echo; echo READY; exec cat';
const ECHO_PROGRAM = ['sh', '-c', ECHO_SCRIPT];
/**
 * An echo slower than this is one a scheduler delay made (a wake-up that waited for a busy core):
 * the share of such keys is what p99 rests on under load, and compares steadier than p99 itself.
 */
const SLOW_ECHO_MS = 1;
/** Give up waiting for one echo after this long. */
const ECHO_TIMEOUT_MS = 5_000;
const COLS = 80;
const ROWS = 24;
/** See throughput.ts: other built checkouts' `clippy attach`, as more variants. */
const BASELINES = otherCheckouts();
/**
 * BENCH_PATHS=name[,name…] measures only the paths so named (e.g. `clippy attach,tmux attach`),
 * so a profiler or strace attached to one process sees that path alone.
 */
const ONLY = process.env.BENCH_PATHS?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
/** This checkout's attach with CLIPPY_ATTACH_RELAY=1: every byte through the attach process. */
const RELAY = 'clippy attach, relay';

/** A path under test: send one key, and hear of every chunk of output that comes back. */
interface Path {
  send(key: string): void;
  /** Processes whose CPU is counted (name → PID). */
  procs: Record<string, number>;
  close(): Promise<void>;
}

/** Round trips on a path: one key, wait for its echo, `n` times. */
class EchoMeter {
  private waiting: ((t: number) => void) | null = null;

  constructor(private readonly path: Path) {}

  /** Feed every chunk the path's terminal (or client) receives. */
  feed(s: string): void {
    if (this.waiting && s.includes('x')) {
      const w = this.waiting;
      this.waiting = null;
      w(performance.now());
    }
  }

  async measure(n: number): Promise<number[]> {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const echoed = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('echo timed out')), ECHO_TIMEOUT_MS);
        this.waiting = (t) => {
          clearTimeout(timer);
          resolve(t);
        };
      });
      this.path.send('x');
      samples.push((await echoed) - started);
      if (KEY_GAP_MS > 0) await new Promise((r) => setTimeout(r, KEY_GAP_MS));
    }
    return samples;
  }
}

/** A terminal path (clippy attach, tmux attach, direct): type into it, read it. */
async function terminalPath(term: Term, procs: Record<string, number>): Promise<[Path, EchoMeter]> {
  await term.waitText('READY');
  // The program printed READY before it reached `cat`; give it a moment.
  await new Promise((r) => setTimeout(r, 300));
  const p: Path = {
    send: (k) => term.type(k),
    procs: { ...procs },
    close: async () => {
      await term.kill();
    },
  };
  const meter = new EchoMeter(p);
  term.onData((d) => meter.feed(d.toString('latin1')));
  return [p, meter];
}

async function clippyAttach(host: ClippyHost, relay = false): Promise<[Path, EchoMeter]> {
  const session = await host.spawn(ECHO_PROGRAM[0]!, ECHO_PROGRAM.slice(1), COLS, ROWS);
  const term = host.attach(session, COLS, ROWS, relay);
  return terminalPath(term, { 'attach client': term.pid, daemon: host.pid });
}

async function tmuxAttach(host: TmuxHost): Promise<[Path, EchoMeter]> {
  host.spawn('echo', ECHO_SCRIPT, COLS, ROWS);
  const term = host.attach('echo', COLS, ROWS);
  return terminalPath(term, { 'tmux client': term.pid, 'tmux server': host.pid });
}

async function direct(): Promise<[Path, EchoMeter]> {
  const term = new Term(ECHO_PROGRAM[0]!, ECHO_PROGRAM.slice(1), COLS, ROWS, {
    ...(process.env as Record<string, string>),
  });
  return terminalPath(term, {});
}

/**
 * One Node process owning a terminal and relaying it to a PTY running the echo program: what
 * direct attach does (terminal ↔ clippyd ↔ the session's PTY), with nothing else, and done the
 * way the daemon does it, so that it is the floor of a Node process on this path: both sides are
 * read with net's `onread` into one buffer (node-pty's reader is swapped during its spawn, as
 * system's PtyReader does) and written with one `write()` each, no streams or events between.
 * A relay with node-pty's `data` events and `process.stdout.write` is much slower under load, so
 * it would not be a floor: measured interleaved with this one and tmux, 24 rounds of 200 keys
 * typed 2 ms after each echo into `cat` beside two busy loops in another session, 1.6% of its
 * echoes took over 1 ms, against 0.8% for this one and 0.6% for tmux.
 */
const TERMINAL_RELAY = `
const pty = require(process.argv[1]);
const fs = require('node:fs');
const tty = require('node:tty');
const ReadStream = tty.ReadStream;
const reading = (fd, to) => new ReadStream(fd, { onread: { buffer: Buffer.allocUnsafe(65536),
  callback: (n, buf) => { if (n > 0) fs.writeSync(to(), buf, 0, n); } } });
let p = null;
tty.ReadStream = function (fd) { return reading(fd, () => 1); };
try {
  p = pty.spawn(${JSON.stringify(ECHO_PROGRAM[0])}, ${JSON.stringify(ECHO_PROGRAM.slice(1))}, { cols: 80, rows: 24, encoding: null });
} finally {
  tty.ReadStream = ReadStream;
}
const input = reading(0, () => p.fd);
input.setRawMode(true);
input.resume();
`;

async function terminalRelay(): Promise<[Path, EchoMeter]> {
  const term = new Term(
    process.execPath,
    ['-e', TERMINAL_RELAY, require.resolve('node-pty')],
    COLS,
    ROWS,
    process.env as Record<string, string>,
  );
  return terminalPath(term, { relay: term.pid });
}

async function clientLibrary(host: ClippyHost): Promise<[Path, EchoMeter]> {
  const session = await host.spawn(ECHO_PROGRAM[0]!, ECHO_PROGRAM.slice(1), COLS, ROWS);
  const client: ClippyClient = await host.connect();
  let seen = '';
  let meter: EchoMeter | null = null;
  const ready = new Promise<void>((resolve) => {
    client.on('output', (o) => {
      const s = Buffer.from(o.data).toString('latin1');
      if (meter) meter.feed(s);
      else if ((seen += s).includes('READY')) resolve();
    });
  });
  await client.request('attach', { session, mode: 'interactive', cols: COLS, rows: ROWS });
  await Promise.race([ready, new Promise((r) => setTimeout(r, 2_000))]);
  await new Promise((r) => setTimeout(r, 300));
  const p: Path = {
    // As `clippy attach` sends keystrokes: notifications, no response per key.
    send: (k) => client.notify('input', { session, data: Buffer.from(k) }),
    procs: { daemon: host.pid },
    close: async () => {
      await client.close();
    },
  };
  meter = new EchoMeter(p);
  return [p, meter];
}

/**
 * The floor of any broker on this machine: a second process that only relays bytes between a
 * Unix socket and a PTY running the same echo program (no framing, no screen model, no
 * detection).
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

async function minimalRelay(): Promise<[Path, EchoMeter]> {
  const tmp = tempDir();
  const sock = path.join(tmp.dir, 'relay.sock');
  const relay = spawn(process.execPath, ['-e', MINIMAL_RELAY, require.resolve('node-pty'), sock], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const forgetRelay = onInterrupt(() => relay.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    relay.stdout.on('data', (d: Buffer) => d.includes('listening') && resolve());
    relay.once('exit', (code) => reject(new Error(`minimal relay exited (${code})`)));
  });
  const socket = net.connect(sock);
  await new Promise((r) => socket.once('connect', r));
  // The program printed READY before we connected; give it a moment to reach `cat`.
  await new Promise((r) => setTimeout(r, 300));
  const p: Path = {
    send: (k) => socket.write(k),
    procs: { relay: relay.pid! },
    close: async () => {
      socket.destroy();
      relay.kill('SIGKILL');
      forgetRelay();
      tmp.remove();
    },
  };
  const meter = new EchoMeter(p);
  socket.on('data', (d: Buffer) => meter.feed(d.toString('latin1')));
  return [p, meter];
}

/** The share of echoes (ms) slower than SLOW_ECHO_MS, as a percentage. */
function slowShare(sorted: number[]): string {
  const slow = sorted.filter((ms) => ms > SLOW_ECHO_MS).length;
  return `${((slow / sorted.length) * 100).toFixed(1)}%`;
}

export async function run(): Promise<void> {
  const tmuxWhy = TmuxHost.unavailable();
  const clippyHost = await ClippyHost.start();
  const others: [string, ClippyHost][] = [];
  for (const [name, root] of BASELINES) others.push([name, await ClippyHost.start(root)]);
  const tmuxHost = tmuxWhy ? null : new TmuxHost();
  const opened: Path[] = [];
  try {
    type Setup = [string, () => Promise<[Path, EchoMeter]>];
    const setups: Setup[] = (
      [
        ['clippy attach', () => clippyAttach(clippyHost)],
        [RELAY, () => clippyAttach(clippyHost, true)],
        ...others.map(([name, host]) => [name, () => clippyAttach(host)] as Setup),
        ...(tmuxHost ? [['tmux attach', () => tmuxAttach(tmuxHost)] as Setup] : []),
        ['node-pty direct', direct],
        ['clippy client library', () => clientLibrary(clippyHost)],
        ['minimal relay', minimalRelay],
        ['minimal terminal relay', terminalRelay],
      ] as Setup[]
    ).filter(([name]) => !ONLY || ONLY.includes(name));
    process.stdout.write(
      `${ROUNDS} interleaved rounds of ${KEYS_PER_ROUND} keystrokes per path, echoed by \`cat\` in raw mode, ${KEY_GAP_MS > 0 ? `${KEY_GAP_MS} ms between keys` : 'back to back'}; load ${loadAverage()}\n`,
    );
    if (tmuxWhy) process.stdout.write(`tmux: skipped (${tmuxWhy})\n`);
    const meters: [string, Path, EchoMeter][] = [];
    for (const [name, setup] of setups) {
      const [p, meter] = await setup();
      opened.push(p);
      meters.push([name, p, meter]);
      await meter.measure(WARMUP);
    }
    const samples = new Map<string, number[]>(meters.map(([n]) => [n, []]));
    const cpu = new Map<string, Record<string, number>>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, p, meter] of meters) {
        const before = Object.fromEntries(
          Object.entries(p.procs).map(([k, pid]) => [k, cpuOf(pid)]),
        );
        samples.get(name)!.push(...(await meter.measure(KEYS_PER_ROUND)));
        const sums = cpu.get(name) ?? {};
        for (const [k, pid] of Object.entries(p.procs))
          sums[k] = (sums[k] ?? 0) + cpuOf(pid) - before[k]!;
        cpu.set(name, sums);
      }
      const p50s = meters.map(([n]) => {
        const s = samples
          .get(n)!
          .slice(-KEYS_PER_ROUND)
          .sort((a, b) => a - b);
        return `${n} ${percentile(s, 50).toFixed(2)}`;
      });
      process.stdout.write(`round ${round} p50: ${p50s.join(', ')} ms; load ${loadAverage()}\n`);
    }
    const sorted = new Map([...samples].map(([n, s]) => [n, [...s].sort((a, b) => a - b)]));
    const width = Math.max(...meters.map(([n]) => n.length)) + 1;
    process.stdout.write(`all rounds (${KEYS_PER_ROUND * ROUNDS} keystrokes per path):\n`);
    for (const [name] of meters) {
      const s = sorted.get(name)!;
      const perKey = Object.entries(cpu.get(name) ?? {})
        .map(([k, v]) => `${k} ${((v / s.length) * 1e6).toFixed(0)} µs`)
        .join(', ');
      process.stdout.write(
        `${name.padEnd(width)} p50 ${percentile(s, 50).toFixed(3)} ms   p99 ${percentile(s, 99).toFixed(3)} ms   max ${s.at(-1)!.toFixed(3)} ms   over ${SLOW_ECHO_MS} ms ${slowShare(s)}${perKey ? `   CPU per key: ${perKey}` : ''}\n`,
      );
    }
    const ratio = (a: string, b: string, p: number) =>
      sorted.has(a) && sorted.has(b)
        ? (percentile(sorted.get(a)!, p) / percentile(sorted.get(b)!, p)).toFixed(2)
        : '-';
    process.stdout.write(
      `clippy attach / tmux attach: p50 ${ratio('clippy attach', 'tmux attach', 50)}x (goal <= 1.2x), p99 ${ratio('clippy attach', 'tmux attach', 99)}x (goal <= 1x)\n` +
        `${RELAY}: / tmux p50 ${ratio(RELAY, 'tmux attach', 50)}x, p99 ${ratio(RELAY, 'tmux attach', 99)}x\n` +
        others
          .map(
            ([name]) =>
              `${name}: / tmux p50 ${ratio(name, 'tmux attach', 50)}x, p99 ${ratio(name, 'tmux attach', 99)}x\n`,
          )
          .join('') +
        `minimal terminal relay / tmux: p50 ${ratio('minimal terminal relay', 'tmux attach', 50)}x, p99 ${ratio('minimal terminal relay', 'tmux attach', 99)}x (the floor of a Node process on the path)\n` +
        `client library / tmux:       p50 ${ratio('clippy client library', 'tmux attach', 50)}x, p99 ${ratio('clippy client library', 'tmux attach', 99)}x (second line: no attach process, no outer terminal)\n`,
    );
  } finally {
    for (const p of opened) await p.close();
    await clippyHost.stop();
    for (const [, host] of others) await host.stop();
    await tmuxHost?.stop();
  }
}

if (isMain(import.meta.url)) await run();
