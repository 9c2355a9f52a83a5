/**
 * How quickly the everyday `clippy` commands start and finish, their CPU time (user + system)
 * and their peak memory: each is
 * run RUNS times, side by side (one round runs every variant once) with `node -e 0` (the floor
 * of any node program) and `tmux ls` (what a terminal multiplexer's CLI costs) as baselines.
 * Prints medians, max RSS and the ratio to `node -e 0` measured in the same run; asserts
 * nothing. Needs `npm run build` (it runs the built bin/clippy.js, as a user does).
 */
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import type { ClippyClient } from '@clippy/client';
import { TestDaemon } from '@clippy/testkit/daemon';
import { spawnProgram } from '@clippy/testkit/agents/harness';
import { bins } from '@clippy/testkit/paths';
import { isMain, mb, median } from './_common.js';

/** Rounds (the issue asks for the median of 10). */
const RUNS = 10;
/** Rounds run first and not counted (disk cache, the daemon's first answers). */
const WARMUP = 2;
/** Longest one command may take before the benchmark calls it hung. */
const COMMAND_TIMEOUT_MS = 30_000;
/** Longest the set-up turn (`echo` in bash) may take to be detected on a loaded machine. */
const TURN_TIMEOUT_MS = 15_000;
/** Pause between looks for the set-up turn. */
const POLL_MS = 50;

/** Polls `probe` until it gives a value. */
async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** True once the session is idle (its state after a submitted line has been answered). */
async function idle(c: ClippyClient, session: string): Promise<true | undefined> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((s) => s.name === session)?.state === 'idle' ? true : undefined;
}

interface Figures {
  ms: number[];
  cpuMs: number[];
  rssKb: number[];
}

/**
 * GNU time reports a child's CPU time (`%U %S`, s) and peak RSS (`%M`, KB); without it those
 * columns stay empty.
 */
const TIME_BIN = '/usr/bin/time';
const hasTime = spawnSync(TIME_BIN, ['-f', '%M', 'true']).status === 0;

/**
 * Runs a command once: its wall time (spawn to exit), CPU time and peak RSS. `exitCode`: the
 * code it is meant to end with (`kill nosuch` fails, as measured).
 */
function runOnce(
  argv: string[],
  env: NodeJS.ProcessEnv,
  exitCode = 0,
): Promise<{ ms: number; cpuMs: number; rssKb: number }> {
  return new Promise((resolve, reject) => {
    const cmd = hasTime ? TIME_BIN : argv[0]!;
    const args = hasTime ? ['-f', '%U %S %M', ...argv] : argv.slice(1);
    const started = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      const lines = err.trim().split('\n');
      // GNU time says `Command exited with non-zero status N` before its own line.
      const [user, sys, rss] = hasTime ? lines.pop()!.split(' ').map(Number) : [NaN, NaN, NaN];
      const cpuMs = (user! + sys!) * 1000;
      const status = code === 0 || !hasTime ? code : Number(/status (\d+)/.exec(err)?.[1] ?? code);
      if (status !== exitCode)
        reject(new Error(`${argv.join(' ')} exited ${status}: ${lines.join('\n')}`));
      else resolve({ ms, cpuMs, rssKb: rss! });
    });
  });
}

export async function run(): Promise<void> {
  const d = await TestDaemon.start();
  const tmuxName = `clippy-bench-${process.pid}`;
  const tmux = spawnSync('tmux', ['-V']).status === 0;
  try {
    const c = await d.connect();
    await spawnProgram(d, c, 'a', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    await spawnProgram(d, c, 'b', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    // The target of what is typed without Enter: it stays idle, so those lines measure no wait.
    await spawnProgram(d, c, 'c', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    // One turn in `a` for show, capture and relay; capture fills the relay buffer for paste.
    await c.request('send', { session: 'a', text: 'echo bench-turn', enter: true });
    const turn = await until(async () => {
      const { turns } = await c.request('list_turns', { session: 'a' });
      return turns[0]?.turn_id;
    }, TURN_TIMEOUT_MS);
    if (tmux) spawnSync('tmux', ['-L', tmuxName, 'new-session', '-d', 'sleep 600']);

    const clippy = (...args: string[]) => [process.execPath, bins.clippy, ...args];
    /** Names of the variants that submit into b: the round waits for b to be idle after them. */
    const submits = new Set(['clippy paste', 'clippy relay']);
    /** Lines that end with another code than 0, by name. */
    const codes = new Map([['kill nosuch', 1]]);
    const variants: [string, string[]][] = [
      ['node -e 0', [process.execPath, '-e', '0']],
      ...(tmux ? [['tmux ls', ['tmux', '-L', tmuxName, 'ls']] as [string, string[]]] : []),
      ['clippy ls', clippy('ls')],
      ['clippy turns a', clippy('turns', 'a')],
      ['clippy show', clippy('show', turn)],
      ['clippy capture', clippy('capture', turn)],
      ['clippy send', clippy('send', 'c', '#')],
      ['clippy paste', clippy('paste', 'b')],
      ['clippy relay', clippy('relay', turn, 'b')],
      // Without the submit (the daemon's quiet wait before Enter and its confirmation): what
      // the CLI itself costs on those two.
      ['paste --no-enter', clippy('paste', 'c', '--no-enter')],
      ['relay --no-enter', clippy('relay', turn, 'c', '--no-enter')],
      // What the completion scripts run on TAB (`clippy attach <TAB>`: asks the daemon).
      ['__complete', clippy('__complete', 'bash', '--', 'attach', '')],
      ['clippy --help', clippy('--help')],
      // Lines of the full CLI (yargs): what most e2e tests and key bindings run.
      ['clippy --version', clippy('--version')],
      ['ask --help', clippy('ask', '--help')],
      ['kill nosuch', clippy('kill', 'nosuch')],
    ];
    const figures = new Map<string, Figures>(
      variants.map(([n]) => [n, { ms: [], cpuMs: [], rssKb: [] }]),
    );
    for (let round = 0; round < WARMUP + RUNS; round++) {
      for (const [name, argv] of variants) {
        const r = await runOnce(argv, d.env.env, codes.get(name));
        // b runs what was submitted and the daemon detects its turn: not while the next
        // command is timed (unmeasured, like a person's pause between two commands).
        if (submits.has(name)) await until(() => idle(c, 'b'), TURN_TIMEOUT_MS);
        if (round < WARMUP) continue;
        figures.get(name)!.ms.push(r.ms);
        figures.get(name)!.cpuMs.push(r.cpuMs);
        figures.get(name)!.rssKb.push(r.rssKb);
      }
    }
    const base = median(figures.get('node -e 0')!.ms);
    const baseCpu = median(figures.get('node -e 0')!.cpuMs);
    const [load1] = os.loadavg();
    process.stdout.write(
      `median of ${RUNS} (after ${WARMUP} warm-up rounds), every variant once per round; ` +
        `load average ${load1!.toFixed(2)} at the end\n` +
        `${'command'.padEnd(18)} ${'median'.padStart(9)} ${'vs node -e 0'.padStart(13)} ${'CPU'.padStart(9)} ${'vs node -e 0'.padStart(13)} ${'max RSS'.padStart(9)}\n`,
    );
    for (const [name, f] of figures) {
      const rss = Math.max(...f.rssKb);
      const cpu = median(f.cpuMs);
      const cpuCols = Number.isNaN(cpu)
        ? `${'-'.padStart(9)} ${'-'.padStart(13)}`
        : `${`${cpu.toFixed(0)} ms`.padStart(9)} ${`${(cpu / baseCpu).toFixed(2)}x`.padStart(13)}`;
      process.stdout.write(
        `${name.padEnd(18)} ${`${median(f.ms).toFixed(1)} ms`.padStart(9)} ${`${(median(f.ms) / base).toFixed(2)}x`.padStart(13)} ${cpuCols} ${Number.isNaN(rss) ? '-'.padStart(9) : `${mb(rss * 1024).toFixed(1)} MB`.padStart(9)}\n`,
      );
    }
    process.stdout.write(
      'paste and relay (into b) include the daemon submitting: a quiet wait before Enter\n' +
        "(INJECT_ENTER_DELAY_MS) and b's reaction; each round waits, untimed, for b to be idle again.\n" +
        'send and the --no-enter lines type into c, which stays idle: the CLI and the request alone.\n' +
        'CPU: user + system time of the process (GNU time), the cost a loaded machine feels.\n',
    );
    await c.close();
  } finally {
    if (tmux) spawnSync('tmux', ['-L', tmuxName, 'kill-server']);
    await d.stop();
  }
}

if (isMain(import.meta.url)) await run();
