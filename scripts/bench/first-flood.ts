/**
 * What the first flood in a new session costs, against the next one in the same session: the
 * case `../shared/bench/bench-cpu.mjs` measures (a new session each round, one `cat` in it),
 * which the throughput benchmark leaves out on purpose (it warms each variant up first).
 *
 * Each round makes a new session in one long-lived daemon (clippy) and in one long-lived tmux
 * server, attaches the real `clippy attach` / `tmux attach` in a PTY, and types `cat` of a 64 MB
 * text file twice, timing the CPU of the multiplexer's processes (daemon + attach client; tmux
 * server + client) for each `cat`. Variants interleaved, BENCH_ROUNDS rounds, medians compared;
 * the daemon's threads are shown per flood. Asserts nothing. Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { threadCpu, threadCpuDelta } from './_threads.js';
import {
  MarkerWatcher,
  isMain,
  loadAverage,
  mb,
  median,
  tempDir,
  writeTextFile,
} from './_common.js';
import { ClippyHost, type Term, TmuxHost, cpuOf } from './_terminals.js';

/** Size of the file: the size bench-cpu uses, large enough that a round's set-up vanishes. */
const FILE_BYTES = 64 * 1024 * 1024;
const COLS = 200;
const ROWS = 50;
const MARKER = '__BENCH_DONE__';
/** The command line shows the marker split by quotes, so only the output matches. */
const COMMAND = (file: string) => `cat ${file}; echo __BENCH_""DONE__\r`;
/** Pause before each flood, as between two commands a user types (the last turn closes). */
const SETTLE_MS = 300;
/** Give up on one flood after this long. */
const FLOOD_TIMEOUT_MS = 180_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SHELL = ['--norc', '--noprofile'];

/** CPU seconds of one flood, in all and for the daemon's threads (clippy). */
interface Flood {
  cpu: number;
  threads?: string;
}

/** Types the `cat`, waits for the marker; the CPU `pids` used meanwhile. */
async function flood(term: Term, pids: number[], file: string, daemon?: number): Promise<Flood> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const watcher = new MarkerWatcher(Buffer.from(MARKER));
  let timer: NodeJS.Timeout | undefined;
  let sub: { dispose(): void } | undefined;
  const done = new Promise<void>((resolve, reject) => {
    sub = term.onData((d) => watcher.feed(d) && resolve());
    timer = setTimeout(() => reject(new Error('the flood timed out')), FLOOD_TIMEOUT_MS);
  });
  const cpu = () => pids.reduce((sum, pid) => sum + cpuOf(pid), 0);
  const before = cpu();
  const threads0 = daemon ? threadCpu(daemon) : null;
  term.type(COMMAND(file));
  try {
    await done;
  } finally {
    clearTimeout(timer);
    sub?.dispose();
  }
  const used = cpu() - before;
  return {
    cpu: used,
    ...(threads0 && daemon ? { threads: threadCpuDelta(threads0, threadCpu(daemon)) } : {}),
  };
}

/** A new clippy session, attached; its first and second flood. */
async function clippyRound(host: ClippyHost, file: string): Promise<[Flood, Flood]> {
  const session = await host.spawn('bash', SHELL, COLS, ROWS);
  const term = host.attach(session, COLS, ROWS);
  try {
    await term.waitText('$ ');
    const pids = [host.pid, term.pid];
    const first = await flood(term, pids, file, host.pid);
    const second = await flood(term, pids, file, host.pid);
    return [first, second];
  } finally {
    await term.kill();
    const c = await host.connect();
    await c.request('kill', { session, signal: 'SIGKILL', remove: true }).catch(() => {});
    await c.close();
  }
}

/** A new tmux session, attached; its first and second flood. */
async function tmuxRound(host: TmuxHost, name: string, file: string): Promise<[Flood, Flood]> {
  host.spawn(name, `env PS1='$ ' bash ${SHELL.join(' ')}`, COLS, ROWS);
  const term = host.attach(name, COLS, ROWS);
  try {
    await term.waitText('$ ');
    const pids = [host.pid, term.pid];
    return [await flood(term, pids, file), await flood(term, pids, file)];
  } finally {
    await term.kill();
    execFileSync('tmux', ['-S', host.socket, 'kill-session', '-t', name], { stdio: 'ignore' });
  }
}

const msPerMb = (s: number) => ((s * 1000) / mb(FILE_BYTES)).toFixed(1);

export async function run(): Promise<void> {
  const noTmux = TmuxHost.unavailable();
  if (noTmux) process.stdout.write(`tmux skipped: ${noTmux}\n`);
  const tmp = tempDir();
  const tmux = noTmux ? null : new TmuxHost();
  let clippy: ClippyHost | null = null;
  const r = { clippy: [[], []] as Flood[][], tmux: [[], []] as Flood[][] };
  try {
    const file = path.join(tmp.dir, 'flood.txt');
    writeTextFile(file, FILE_BYTES);
    clippy = await ClippyHost.start();
    // A session that stays: tmux's server exits with its last session, the daemon never does.
    tmux?.spawn('keep', 'cat', COLS, ROWS);
    process.stdout.write(
      `file: ${mb(FILE_BYTES)} MB of text, terminal ${COLS}x${ROWS}, a new session per round, ` +
        `${ROUNDS} interleaved rounds; load ${loadAverage()}\n`,
    );
    for (let i = 0; i < ROUNDS; i++) {
      const [c1, c2] = await clippyRound(clippy, file);
      r.clippy[0]!.push(c1);
      r.clippy[1]!.push(c2);
      let line = `round ${i + 1}: clippy ${c1.cpu.toFixed(2)} then ${c2.cpu.toFixed(2)} s`;
      if (tmux) {
        const [t1, t2] = await tmuxRound(tmux, `flood${i}`, file);
        r.tmux[0]!.push(t1);
        r.tmux[1]!.push(t2);
        line += `, tmux ${t1.cpu.toFixed(2)} then ${t2.cpu.toFixed(2)} s`;
      }
      process.stdout.write(`${line}; load ${loadAverage()}\n`);
      process.stdout.write(`  clippy daemon threads, first: ${c1.threads}\n`);
      process.stdout.write(`  clippy daemon threads, second: ${c2.threads}\n`);
    }
  } finally {
    await clippy?.stop();
    await tmux?.stop();
    tmp.remove();
  }
  const med = (floods: Flood[]) => median(floods.map((f) => f.cpu));
  const [c1, c2] = [med(r.clippy[0]!), med(r.clippy[1]!)];
  process.stdout.write('CPU per MB of the file (median over rounds), multiplexer and client:\n');
  process.stdout.write(
    `  clippy  first flood ${msPerMb(c1)} ms, second ${msPerMb(c2)} ms (first / second ${(c1 / c2).toFixed(2)}x)\n`,
  );
  if (tmux) {
    const [t1, t2] = [med(r.tmux[0]!), med(r.tmux[1]!)];
    process.stdout.write(
      `  tmux    first flood ${msPerMb(t1)} ms, second ${msPerMb(t2)} ms (first / second ${(t1 / t2).toFixed(2)}x)\n`,
    );
    process.stdout.write(
      `clippy / tmux: first flood ${(c1 / t1).toFixed(2)}x, second flood ${(c2 / t2).toFixed(2)}x\n`,
    );
  }
}

if (isMain(import.meta.url)) await run();
