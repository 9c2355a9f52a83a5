/**
 * The daemon's CPU per MB of output with one busy session and with many at once: each session
 * `cat`s a text file (bash under the default line preset: turn detection, the screen model and
 * flood compaction all run), nobody attached, from the moment they are told to go to the last
 * `session_exited`. Sessions are spawned and ready before the clock starts, so spawning costs
 * nothing here. Rounds interleave the variants (BENCH_ROUNDS, default 5) and medians are
 * compared: many sessions should cost no more per MB than one. The baseline, in the same
 * rounds: a private tmux server doing the same with panes nobody is attached to (it parses all
 * their output into its grids, as clippy's screen model and scan do), where tmux is installed.
 * BENCH_BASELINE (see throughput.ts) measures other built checkouts' daemons beside this one.
 * Prints the load average beside the figures; asserts nothing. Needs `npm run build`.
 */
import path from 'node:path';
import type { ClippyClient } from '@clippy/client';
import { isMain, loadAverage, mb, tempDir, writeTextFile } from './_common.js';
import { threadCpu, threadCpuDelta } from './_threads.js';
import { ClippyHost, TmuxHost, cpuOf, otherCheckouts } from './_terminals.js';

/** Sessions printing at once in the "many" variant. */
const MANY = Number(process.env.BENCH_SESSIONS ?? 50);
/** What one session prints alone: large enough that start-up costs vanish. */
const ONE_BYTES = 64 * 1024 * 1024;
/** What each of the many prints: together about as much as the one, more than a screen each. */
const EACH_BYTES = 2 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const COLS = 120;
const ROWS = 40;
/** Give up on one variant after this long. */
const VARIANT_TIMEOUT_MS = 300_000;

/** One measured run: the daemon's CPU and the output it handled. */
interface Run {
  cpu: number;
  bytes: number;
  ms: number;
  threads: string;
}

/**
 * Spawns `count` sessions that each wait for a line, then `cat` `file` and exit; tells them all
 * to go at once and waits for the last exit, measuring the daemon's CPU meanwhile.
 */
async function burst(host: ClippyHost, count: number, file: string, bytes: number): Promise<Run> {
  const c: ClippyClient = await host.connect();
  try {
    await c.request('subscribe', { events: ['session_exited'] });
    const ids = new Set<string>();
    for (let i = 0; i < count; i++) {
      const { session } = await c.request('spawn', {
        command: 'sh',
        args: ['-c', `read go; cat ${file}`],
        cols: COLS,
        rows: ROWS,
      });
      ids.add(session);
    }
    let left = ids.size;
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise<void>((resolve, reject) => {
      c.on('session_exited', (m) => {
        if (ids.has(m.session) && --left === 0) resolve();
      });
      timer = setTimeout(
        () => reject(new Error(`${count} sessions did not finish`)),
        VARIANT_TIMEOUT_MS,
      );
    });
    // Every session's shell is reading by now: `read` is the first thing each runs.
    await new Promise((r) => setTimeout(r, 500));
    const cpu0 = cpuOf(host.pid);
    const threads0 = threadCpu(host.pid);
    const started = performance.now();
    for (const session of ids) c.notify('input', { session, data: Buffer.from('\r') });
    await exited.finally(() => clearTimeout(timer));
    // Answered once the daemon worked off what the output queued before it.
    await c.request('daemon_status', {});
    const ms = performance.now() - started;
    const run = {
      cpu: cpuOf(host.pid) - cpu0,
      bytes: count * bytes,
      ms,
      threads: threadCpuDelta(threads0, threadCpu(host.pid)),
    };
    for (const session of ids) await c.request('remove', { session });
    return run;
  } finally {
    await c.close();
  }
}

/** How often the tmux variant looks whether its panes are gone (a tmux command each time). */
const TMUX_POLL_MS = 50;

/**
 * The tmux baseline of `burst`: `count` panes of a private tmux server wait for a file to
 * appear, then `cat` `file` and exit; one more pane, idle, keeps the server up. Measures the
 * server's CPU from the file's creation until the last of the panes is gone.
 */
async function tmuxBurst(
  tmux: TmuxHost,
  dir: string,
  count: number,
  file: string,
  bytes: number,
): Promise<Run> {
  const go = path.join(dir, `go-${Date.now()}`);
  const names: string[] = [];
  // The panes look for `go` every 20 ms: their sleeps cost the server nothing.
  const command = `sh -c 'while [ ! -e ${go} ]; do sleep 0.02; done; exec cat ${file}'`;
  for (let i = 0; i < count; i++) {
    const name = `b${i}`;
    tmux.spawn(name, command, COLS, ROWS);
    names.push(name);
  }
  await new Promise((r) => setTimeout(r, 500));
  const cpu0 = cpuOf(tmux.pid);
  const threads0 = threadCpu(tmux.pid);
  const started = performance.now();
  writeTextFile(go, 0);
  const deadline = Date.now() + VARIANT_TIMEOUT_MS;
  // A pane is gone once its output was read to its end and its program exited.
  while (tmux.sessions().some((n) => names.includes(n))) {
    if (Date.now() > deadline) throw new Error(`${count} tmux panes did not finish`);
    await new Promise((r) => setTimeout(r, TMUX_POLL_MS));
  }
  const ms = performance.now() - started;
  return {
    cpu: cpuOf(tmux.pid) - cpu0,
    bytes: count * bytes,
    ms,
    threads: threadCpuDelta(threads0, threadCpu(tmux.pid)),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A run's CPU per MB of output, in ms. */
const cpuPerMbOf = (r: Run) => (r.cpu / mb(r.bytes)) * 1000;

export async function run(): Promise<void> {
  const tmp = tempDir();
  const hosts: [string, ClippyHost][] = [['clippy', await ClippyHost.start()]];
  let tmux: TmuxHost | null = null;
  for (const [name, root] of otherCheckouts())
    hosts.push([name.replace('clippy attach', 'clippy'), await ClippyHost.start(root)]);
  try {
    const one = path.join(tmp.dir, 'one.txt');
    writeTextFile(one, ONE_BYTES);
    const each = path.join(tmp.dir, 'each.txt');
    writeTextFile(each, EACH_BYTES);
    process.stdout.write(
      `one session: ${mb(ONE_BYTES).toFixed(0)} MB; ${MANY} sessions: ${mb(EACH_BYTES).toFixed(0)} MB each; ` +
        `nobody attached; ${ROUNDS} interleaved rounds; load ${loadAverage()}\n`,
    );
    const variants: [string, () => Promise<Run>][] = [];
    for (const [name, host] of hosts) {
      variants.push([`${name}, 1 session`, () => burst(host, 1, one, ONE_BYTES)]);
      variants.push([`${name}, ${MANY} sessions`, () => burst(host, MANY, each, EACH_BYTES)]);
    }
    const noTmux = TmuxHost.unavailable();
    if (noTmux) process.stdout.write(`no tmux baseline: ${noTmux}\n`);
    else {
      const t = (tmux = new TmuxHost());
      t.spawn('keeper', 'sleep 100000', COLS, ROWS);
      variants.push(['tmux, 1 session', () => tmuxBurst(t, tmp.dir, 1, one, ONE_BYTES)]);
      variants.push([
        `tmux, ${MANY} sessions`,
        () => tmuxBurst(t, tmp.dir, MANY, each, EACH_BYTES),
      ]);
    }
    const runs = new Map<string, Run[]>(variants.map(([n]) => [n, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      const parts: string[] = [];
      for (const [name, fn] of variants) {
        const r = await fn();
        runs.get(name)!.push(r);
        parts.push(`${name} ${cpuPerMbOf(r).toFixed(1)} ms/MB`);
      }
      process.stdout.write(`round ${round}: ${parts.join(', ')}; load ${loadAverage()}\n`);
    }
    const width = Math.max(...variants.map(([n]) => n.length)) + 1;
    process.stdout.write('medians (daemon CPU per MB of output, all its threads; throughput):\n');
    const perMb = new Map<string, number>();
    for (const [name] of variants) {
      const rs = runs.get(name)!;
      const cpuPerMb = median(rs.map(cpuPerMbOf));
      const rate = median(rs.map((r) => mb(r.bytes) / (r.ms / 1000)));
      perMb.set(name, cpuPerMb);
      const mid = [...rs].sort((a, b) => a.cpu / a.bytes - b.cpu / b.bytes)[
        Math.floor(rs.length / 2)
      ]!;
      process.stdout.write(
        `  ${name.padEnd(width)} ${cpuPerMb.toFixed(1).padStart(6)} ms/MB  ${rate.toFixed(1).padStart(6)} MB/s  threads: ${mid.threads}\n`,
      );
    }
    const ratioOf = (name: string) =>
      perMb.get(`${name}, ${MANY} sessions`)! / perMb.get(`${name}, 1 session`)!;
    // The same ratio taken within each round, where both variants ran seconds apart: on a
    // machine whose speed drifts between rounds (a shared host), its median moves less.
    const paired = (a: string, b: string) => {
      const [as, bs] = [runs.get(a)!, runs.get(b)!];
      const rs = as.map((r, i) => cpuPerMbOf(r) / cpuPerMbOf(bs[i]!));
      const sorted = [...rs].sort((x, y) => x - y);
      return `round by round ${median(rs).toFixed(2)}x (${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)})`;
    };
    const ownRatio = (name: string) =>
      `${ratioOf(name).toFixed(2)}x; ${paired(`${name}, ${MANY} sessions`, `${name}, 1 session`)}`;
    for (const [name] of hosts) {
      process.stdout.write(
        `${name}: ${MANY} sessions / 1 session, CPU per MB: ${ownRatio(name)} (goal <= 1.0x)\n`,
      );
    }
    if (tmux) {
      process.stdout.write(
        `tmux (baseline): ${MANY} sessions / 1 session, CPU per MB: ${ownRatio('tmux')}\n`,
      );
    }
    const baselines = [...hosts.slice(1).map(([n]) => n), ...(tmux ? ['tmux'] : [])];
    for (const name of baselines) {
      for (const v of ['1 session', `${MANY} sessions`]) {
        const ratio = perMb.get(`clippy, ${v}`)! / perMb.get(`${name}, ${v}`)!;
        process.stdout.write(
          `clippy / ${name}, ${v}: CPU per MB ${ratio.toFixed(2)}x; ${paired(`clippy, ${v}`, `${name}, ${v}`)}\n`,
        );
      }
    }
  } finally {
    for (const [, host] of hosts) await host.stop();
    await tmux?.stop();
    tmp.remove();
  }
}

if (isMain(import.meta.url)) await run();
