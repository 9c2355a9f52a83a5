/**
 * How long a user's first `clippy` command waits while it starts the daemon (`npm run bench --
 * daemon-start`): the real `clippy ls` with no daemon running, which starts one and lists its
 * (no) sessions; and the daemon's CPU time up to that answer. Side by side in each round: the
 * daemon as built (bin/clippyd.js, its bundle), the same daemon from tsc's modules
 * (dist/main.js, the baseline: what a start cost before the bundle), and tmux starting its
 * server (`new-session -d`: what a multiplexer's first command costs). Prints medians and the
 * ratio to the unbundled daemon measured in the same run; asserts nothing. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { isMain, loadAverage, median, processCpuSeconds, timed } from './_common.js';

/** Rounds (each runs every variant once, in turn). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
/** Rounds run first and not counted (disk cache, V8's first compile of each file). */
const WARMUP = 1;
/** Longest one first command may take on a loaded machine. */
const COMMAND_TIMEOUT_MS = 30_000;

interface Figures {
  ms: number[];
  cpuS: number[];
}

/** `clippy ls` in a fresh environment whose daemon is `daemon`: its wait and the daemon's CPU. */
async function firstCommand(daemon: string): Promise<{ ms: number; cpuS: number }> {
  const env = new DaemonEnv({ CLIPPYD_PATH: daemon });
  try {
    const ms = await timed([process.execPath, bins.clippy, 'ls'], env.env, {
      timeoutMs: COMMAND_TIMEOUT_MS,
    });
    const pid = await env.discoverPid();
    if (pid === null) throw new Error(`no daemon answers after clippy ls (${daemon})`);
    return { ms, cpuS: processCpuSeconds(pid) };
  } finally {
    await env.dispose();
  }
}

/** tmux's first command: `new-session -d` starts its server. Its CPU: the server's, by PID. */
async function tmuxFirst(): Promise<{ ms: number; cpuS: number }> {
  const socket = `clippy-bench-start-${process.pid}`;
  try {
    const ms = await timed(
      ['tmux', '-L', socket, '-f', '/dev/null', 'new-session', '-d'],
      { ...process.env, TMUX: '' },
      { timeoutMs: COMMAND_TIMEOUT_MS },
    );
    const pid = Number(
      spawnSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}'], {
        encoding: 'utf8',
      }).stdout.trim(),
    );
    return { ms, cpuS: processCpuSeconds(pid) };
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  }
}

export async function run(): Promise<void> {
  const unbundled = path.join(path.dirname(bins.clippyd), '..', 'dist', 'main.js');
  const tmux = spawnSync('tmux', ['-V']).status === 0;
  const variants: [string, () => Promise<{ ms: number; cpuS: number }>][] = [
    ['clippyd (bundle)', () => firstCommand(bins.clippyd)],
    ['clippyd (modules)', () => firstCommand(unbundled)],
    ...(tmux ? [['tmux new-session', tmuxFirst] as [string, typeof tmuxFirst]] : []),
  ];
  const figures = new Map<string, Figures>(variants.map(([n]) => [n, { ms: [], cpuS: [] }]));
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const [name, measure] of variants) {
      const r = await measure();
      if (round < WARMUP) continue;
      figures.get(name)!.ms.push(r.ms);
      figures.get(name)!.cpuS.push(r.cpuS);
    }
  }
  const base = figures.get('clippyd (modules)')!;
  process.stdout.write(
    `the first command, which starts the daemon (clippy ls; tmux: new-session -d); median of ${ROUNDS}\n` +
      `rounds, every variant once per round; load average ${loadAverage()} at the end\n` +
      `${'variant'.padEnd(18)} ${'wait'.padStart(10)} ${'vs modules'.padStart(11)} ${'daemon CPU'.padStart(11)} ${'vs modules'.padStart(11)}\n`,
  );
  for (const [name, f] of figures) {
    process.stdout.write(
      `${name.padEnd(18)} ${`${median(f.ms).toFixed(0)} ms`.padStart(10)} ${`${(median(f.ms) / median(base.ms)).toFixed(2)}x`.padStart(11)} ${`${(median(f.cpuS) * 1000).toFixed(0)} ms`.padStart(11)} ${`${(median(f.cpuS) / median(base.cpuS)).toFixed(2)}x`.padStart(11)}\n`,
    );
  }
  process.stdout.write(
    'wait: spawn of the command to its exit (the daemon started and answered). daemon CPU: its\n' +
      "user + system time when the command has exited (/proc), the start's cost on a busy machine.\n",
  );
}

if (isMain(import.meta.url)) await run();
