/**
 * Throughput as a user sees it: `cat` of a 64 MB text file typed into a shell, timed from the
 * Enter to an end marker on the terminal, through
 * - `clippy attach` running in a PTY: direct (clippyd reads and writes that PTY itself; the
 *   attach process waits), and relayed (CLIPPY_ATTACH_RELAY=1: terminal ↔ clippy attach ↔
 *   clippyd ↔ the session's PTY),
 * - `tmux attach` running in a PTY, attached to a pane of a private tmux server (the baseline),
 * - bash in node-pty directly (no multiplexer: the machine's ceiling),
 * - and, as a second line, the client library reading the session in this process (no attach
 *   process, no outer terminal).
 * The benchmark reads each outer PTY as a terminal emulator would. Variants run interleaved
 * (A B C D, A B C D, …) for BENCH_ROUNDS rounds; medians are compared. Also prints each
 * process's CPU time per MB and the load average beside the figures. Asserts nothing. Needs
 * `npm run build` (the built daemon and CLI).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { ACK_INTERVAL_BYTES } from '@clippy/protocol';
import { threadCpu, threadCpuDelta } from './_threads.js';
import { MarkerWatcher, isMain, loadAverage, mb, tempDir, writeTextFile } from './_common.js';
import { ClippyHost, Term, TmuxHost, cpuOf, otherCheckouts, shellEnv } from './_terminals.js';

const require = createRequire(import.meta.url);

/** Size of the file: large enough that start-up costs vanish, small enough for a 2-core box. */
const FILE_BYTES = 64 * 1024 * 1024;
const COLS = 200;
const ROWS = 50;
/** Printed after the file; the command line shows it split by quotes, so only the output matches. */
const MARKER = '__BENCH_DONE__';
const COMMAND = (file: string) => `cat ${file}; echo __BENCH_""DONE__\r`;
/**
 * Printed after the warm-up file. Each variant first cats WARM_BYTES untimed: the daemon and an
 * attach client run for hours, so what a user waits for is a warm one, not V8 compiling its hot
 * paths (measured: about 0.6 s of JIT work in a fresh daemon's first flood).
 */
const WARM_MARKER = '__WARM_DONE__';
const WARM_COMMAND = (file: string) => `cat ${file}; echo __WARM_""DONE__\r`;
const WARM_BYTES = 8 * 1024 * 1024;
/** Give up on one variant after this long. */
const VARIANT_TIMEOUT_MS = 180_000;
/** Rounds of all variants, interleaved: the shared VM's speed drifts between minutes. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * BENCH_BASELINE=/path/to/another/built/checkout[,/another/one…] adds each checkout's `clippy
 * attach` (its daemon and CLI), named by its folder, as one more variant: a change's before
 * and after in one run.
 */
const BASELINES = otherCheckouts();
/** This checkout's attach with CLIPPY_ATTACH_RELAY=1: every byte through the attach process. */
const RELAY = 'clippy attach, relay';
/** Pause after a warm-up, as between two commands a user runs (the warm-up's turn closes). */
const SETTLE_MS = 300;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out`)), VARIANT_TIMEOUT_MS);
    }),
  ]);
}

/** Waits for one marker at a time in a byte stream; `bytes` counts what came since it was armed. */
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

/** One timed run: wall time, bytes the reader got, CPU seconds of each process involved. */
interface Run {
  ms: number;
  bytes: number;
  cpu: Record<string, number>;
  /** The daemon's threads (clippy variants). */
  threads?: string;
}

type Procs = Record<string, number>;

/** CPU seconds of this process (the reader) and of each named PID. */
function sampleCpu(procs: Procs): Record<string, number> {
  const own = process.cpuUsage();
  const out: Record<string, number> = { reader: (own.user + own.system) / 1e6 };
  for (const [name, pid] of Object.entries(procs)) out[name] = cpuOf(pid);
  return out;
}

function cpuDelta(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(a)) out[k] = b[k]! - a[k]!;
  return out;
}

/**
 * Through a terminal: waits for the prompt, cats the warm-up file, then the measured one, typed
 * into the terminal; `procs` are the processes whose CPU is counted (besides this reader).
 */
async function floodThrough(
  term: Term,
  procs: Procs,
  file: string,
  warm: string,
  what: string,
  daemonPid?: number,
): Promise<Run> {
  const markers = new Markers();
  term.onData((d) => markers.feed(d));
  await term.waitText('$ ');
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const warmed = markers.arm(WARM_MARKER);
  term.type(WARM_COMMAND(warm));
  await withTimeout(warmed, `${what} warm-up`);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const done = markers.arm(MARKER);
  const cpu0 = sampleCpu(procs);
  const threads0 = daemonPid ? threadCpu(daemonPid) : null;
  const started = performance.now();
  term.type(COMMAND(file));
  await withTimeout(done, what);
  const ms = performance.now() - started;
  const cpu = cpuDelta(cpu0, sampleCpu(procs));
  const threads =
    threads0 && daemonPid ? threadCpuDelta(threads0, threadCpu(daemonPid)) : undefined;
  return { ms, bytes: markers.bytes, cpu, ...(threads ? { threads } : {}) };
}

async function direct(file: string, warm: string): Promise<Run> {
  const term = new Term('bash', ['--norc', '--noprofile'], COLS, ROWS, shellEnv());
  try {
    return await floodThrough(term, {}, file, warm, 'direct');
  } finally {
    await term.kill();
  }
}

async function clippyAttach(
  host: ClippyHost,
  session: string,
  file: string,
  warm: string,
  relay = false,
) {
  const term = host.attach(session, COLS, ROWS, relay);
  try {
    return await floodThrough(
      term,
      { 'attach client': term.pid, daemon: host.pid },
      file,
      warm,
      'clippy attach',
      host.pid,
    );
  } finally {
    // Detach (Ctrl-]) as a user would, then make sure the client is gone.
    term.type('\x1d');
    await new Promise((r) => setTimeout(r, 100));
    await term.kill();
  }
}

async function tmuxAttach(host: TmuxHost, file: string, warm: string): Promise<Run> {
  const term = host.attach('flood', COLS, ROWS);
  try {
    return await floodThrough(
      term,
      { 'tmux client': term.pid, 'tmux server': host.pid },
      file,
      warm,
      'tmux attach',
    );
  } finally {
    await term.kill();
  }
}

/**
 * One Node process in the terminal relaying it to bash in node-pty, nothing else: the floor of
 * direct attach's topology (terminal ↔ one Node process ↔ the program's PTY) for a Node daemon.
 */
const TERMINAL_RELAY = `
const pty = require(process.argv[1]);
const fs = require('node:fs');
process.stdin.setRawMode(true);
const p = pty.spawn('bash', ['--norc', '--noprofile'], { cols: ${COLS}, rows: ${ROWS}, encoding: null, env: process.env });
p.onData((d) => process.stdout.write(d));
process.stdin.on('data', (d) => fs.writeSync(p.fd, d));
p.onExit(() => process.exit(0));
`;

async function terminalRelay(file: string, warm: string): Promise<Run> {
  const term = new Term(
    process.execPath,
    ['-e', TERMINAL_RELAY, require.resolve('node-pty')],
    COLS,
    ROWS,
    shellEnv(),
  );
  try {
    return await floodThrough(term, { relay: term.pid }, file, warm, 'minimal terminal relay');
  } finally {
    await term.kill();
  }
}

/** The client library in this process: attach, read every output push, ack as the CLI does. */
async function clientLibrary(
  host: ClippyHost,
  session: string,
  file: string,
  warm: string,
): Promise<Run> {
  const client = await host.connect();
  try {
    const markers = new Markers();
    let unacked = 0;
    client.on('output', (push) => {
      unacked += push.data.length;
      if (unacked >= ACK_INTERVAL_BYTES) {
        client.notify('ack', { session, bytes: unacked });
        unacked = 0;
      }
      markers.feed(push.data);
    });
    await client.request('attach', { session, mode: 'interactive', cols: COLS, rows: ROWS });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const warmed = markers.arm(WARM_MARKER);
    client.notify('input', { session, data: Buffer.from(WARM_COMMAND(warm)) });
    await withTimeout(warmed, 'client library warm-up');
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const done = markers.arm(MARKER);
    const procs = { daemon: host.pid };
    const cpu0 = sampleCpu(procs);
    const threads0 = threadCpu(host.pid);
    const started = performance.now();
    client.notify('input', { session, data: Buffer.from(COMMAND(file)) });
    await withTimeout(done, 'client library');
    const ms = performance.now() - started;
    const cpu = cpuDelta(cpu0, sampleCpu(procs));
    return {
      ms,
      bytes: markers.bytes,
      cpu,
      threads: threadCpuDelta(threads0, threadCpu(host.pid)),
    };
  } finally {
    await client.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  const tmp = tempDir();
  const tmuxWhy = TmuxHost.unavailable();
  const clippyHost = await ClippyHost.start();
  const others: [string, ClippyHost][] = [];
  for (const [name, root] of BASELINES) others.push([name, await ClippyHost.start(root)]);
  const tmuxHost = tmuxWhy ? null : new TmuxHost();
  try {
    const file = path.join(tmp.dir, 'big.txt');
    writeTextFile(file, FILE_BYTES);
    const warm = path.join(tmp.dir, 'warm.txt');
    writeTextFile(warm, WARM_BYTES);
    const size = mb(FILE_BYTES);
    const rate = (ms: number) => size / (ms / 1000);
    const shell = ['--norc', '--noprofile'];
    const attachSession = await clippyHost.spawn('bash', shell, COLS, ROWS);
    const relaySession = await clippyHost.spawn('bash', shell, COLS, ROWS);
    const librarySession = await clippyHost.spawn('bash', shell, COLS, ROWS);
    const otherSessions = await Promise.all(
      others.map(([, host]) => host.spawn('bash', shell, COLS, ROWS)),
    );
    // tmux leaves PS1 out of a pane's environment: set it again, for the same prompt.
    tmuxHost?.spawn('flood', "env PS1='$ ' bash --norc --noprofile", COLS, ROWS);
    process.stdout.write(
      `file: ${size.toFixed(0)} MB of text, terminal ${COLS}x${ROWS}, ${ROUNDS} interleaved rounds; load ${loadAverage()}\n`,
    );
    if (tmuxWhy) process.stdout.write(`tmux: skipped (${tmuxWhy})\n`);
    const variants: [string, () => Promise<Run>][] = [
      ['clippy attach', () => clippyAttach(clippyHost, attachSession, file, warm)],
      [RELAY, () => clippyAttach(clippyHost, relaySession, file, warm, true)],
      ...others.map(
        ([name, host], k) =>
          [name, () => clippyAttach(host, otherSessions[k]!, file, warm)] as [
            string,
            () => Promise<Run>,
          ],
      ),
      ...(tmuxHost
        ? ([['tmux attach', () => tmuxAttach(tmuxHost, file, warm)]] as [
            string,
            () => Promise<Run>,
          ][])
        : []),
      ['node-pty direct', () => direct(file, warm)],
      ['minimal terminal relay', () => terminalRelay(file, warm)],
      ['clippy client library', () => clientLibrary(clippyHost, librarySession, file, warm)],
    ];
    const runs = new Map<string, Run[]>(variants.map(([n]) => [n, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      const parts: string[] = [];
      for (const [name, fn] of variants) {
        const r = await fn();
        runs.get(name)!.push(r);
        parts.push(`${name} ${rate(r.ms).toFixed(1)}`);
      }
      process.stdout.write(`round ${round}: ${parts.join(', ')} MB/s; load ${loadAverage()}\n`);
    }
    const width = Math.max(...variants.map(([n]) => n.length)) + 1;
    process.stdout.write('medians:\n');
    const med = new Map<string, number>();
    for (const [name] of variants) {
      const ms = median(runs.get(name)!.map((r) => r.ms));
      med.set(name, ms);
      process.stdout.write(
        `${name.padEnd(width)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${rate(ms).toFixed(1).padStart(7)} MB/s\n`,
      );
    }
    const ratio = (a: string, b: string) =>
      med.has(a) && med.has(b) ? (rate(med.get(a)!) / rate(med.get(b)!)).toFixed(2) : '-';
    process.stdout.write(
      `clippy attach / tmux attach: ${ratio('clippy attach', 'tmux attach')}x (goal >= 1.3x)\n` +
        `${RELAY}: / tmux ${ratio(RELAY, 'tmux attach')}x, clippy attach / it ${ratio('clippy attach', RELAY)}x\n` +
        others
          .map(
            ([name]) =>
              `${name}: / tmux ${ratio(name, 'tmux attach')}x, clippy attach / it ${ratio('clippy attach', name)}x\n`,
          )
          .join('') +
        `clippy attach / direct:      ${ratio('clippy attach', 'node-pty direct')}x\n` +
        `minimal terminal relay / tmux: ${ratio('minimal terminal relay', 'tmux attach')}x (the floor of a Node process forwarding every byte)\n` +
        `client library / tmux:       ${ratio('clippy client library', 'tmux attach')}x (second line: no attach process, no outer terminal)\n`,
    );
    process.stdout.write('CPU per MB of the file (median over rounds), per process:\n');
    for (const [name] of variants) {
      const rs = runs.get(name)!;
      const keys = Object.keys(rs[0]!.cpu);
      const cells = keys.map(
        (k) => `${k} ${((median(rs.map((r) => r.cpu[k]!)) / size) * 1000).toFixed(1)} ms`,
      );
      const bytes = median(rs.map((r) => r.bytes));
      process.stdout.write(
        `  ${name.padEnd(width)} ${cells.join(', ')}  (terminal got ${mb(bytes).toFixed(1)} MB)\n`,
      );
      const mid = rs.find((r) => r.ms === med.get(name));
      if (mid?.threads)
        process.stdout.write(`  ${''.padEnd(width)} daemon threads: ${mid.threads}\n`);
    }
  } finally {
    await clippyHost.stop();
    for (const [, host] of others) await host.stop();
    await tmuxHost?.stop();
    tmp.remove();
  }
}

if (isMain(import.meta.url)) await run();
