/**
 * `npm run bench -- web-flood`: what a flood of idle connections to the web view's port costs
 * everyone else (issue #30, break 3: 22,500 of them took the daemon to its descriptor limit).
 * The real daemon (with the machine's descriptor limit), `clippy web` (the real CLI), then:
 * - `clippy ls` (the real CLI process) timed RUNS times with nobody on the web port (the
 *   baseline), then while FLOOD idle connections are held open, then while they are reopened
 *   as fast as the daemon closes them;
 * - the daemon's open descriptors, and how many of the flood's connections it still holds;
 * - how long the daemon takes to close the oldest waiting connection when one more arrives at
 *   the cap, and to close one idle connection that never shows the token.
 * Prints figures and ratios against the baseline; asserts nothing. Needs `npm run build`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import * as broker from '@clippy/broker';
import { TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { isMain, loadAverage, percentile, processCpuSeconds } from './_common.js';

/** Idle connections in the flood: as many as in the report of break 3. */
const FLOOD = 22_500;
/** Flooding processes: each stays well inside its own descriptor limit. */
const FLOODERS = 3;
/** `clippy ls` runs per case. */
const RUNS = 10;
/** How long a flood may take to be placed before the figures are taken anyway. */
const PLACE_TIMEOUT_MS = 120_000;
/** Longest wait for the daemon to close what a killed flood left. */
const SETTLE_TIMEOUT_MS = 120_000;
/**
 * Longest wait for the daemon to close a connection: past its 10 s deadline, and past what
 * builds without one gave (node's HTTP request timeout, checked every 30 s: 10–40 s).
 */
const WAIT_CLOSE_MS = 45_000;
/** Connections without the token the daemon keeps (64 where the build has no such cap). */
const CAP = ((broker as Record<string, unknown>).WEB_PENDING_LIMIT as number | undefined) ?? 64;

/**
 * One flooding process (`node -e`): opens `count` connections to the port and sends nothing;
 * with `again`, reopens each one the daemon closes. Prints `placed` once every first attempt
 * has connected or failed.
 */
const FLOODER = String.raw`
const net = require('node:net');
const [port, count, again] = process.argv.slice(1);
let settled = 0;
function one(first) {
  const s = net.connect(Number(port), '127.0.0.1');
  let done = false;
  const settle = () => {
    if (done || !first) return;
    done = true;
    if (++settled === Number(count)) process.stdout.write('placed\n');
  };
  s.on('connect', settle);
  s.on('error', settle);
  s.on('close', () => {
    settle();
    if (again === '1') setImmediate(() => one(false));
  });
}
for (let i = 0; i < Number(count); i++) one(true);
`;

interface Flooder {
  child: ChildProcess;
  /** Every first attempt connected or failed (false: still some pending at the timeout). */
  placed: Promise<boolean>;
}

function startFlooder(port: number, count: number, again: boolean): Flooder {
  const child = spawn(
    process.execPath,
    ['-e', FLOODER, String(port), String(count), again ? '1' : '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // A daemon that accepts slowly leaves connections pending (the kernel's SYN retries): the
  // flood counts as placed after PLACE_TIMEOUT_MS anyway, and the figures say so.
  const placed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), PLACE_TIMEOUT_MS);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('placed\n')) return;
      clearTimeout(timer);
      resolve(true);
    });
  });
  return { child, placed };
}

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Waits until the daemon has closed what a flood left (its descriptors back near `before`). */
async function settle(pid: number, before: number): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (openFiles(pid) > before + 8 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** When `closed` resolves within `ms`: its time; NaN: something else closed; null: not in time. */
function within(closed: Promise<number>, ms: number): Promise<number | null> {
  return Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), ms).unref())]);
}

/** `12.3 ms after`, or why there is no figure. */
function after(at: number | null, from: number): string {
  if (at === null) return `not within ${WAIT_CLOSE_MS / 1000} s after`;
  if (Number.isNaN(at)) return 'never (the newcomer was closed instead) after';
  const ms = at - from;
  return ms < 1000 ? `${ms.toFixed(1)} ms after` : `${(ms / 1000).toFixed(2)} s after`;
}

/** The daemon's descriptor limit (soft), from /proc. */
function fileLimit(pid: number): string {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  return line?.split(/\s{2,}/)[1] ?? '?';
}

/** `clippy ls` RUNS times: each run's wall time and how many failed (with the first error). */
async function timeLs(env: NodeJS.ProcessEnv) {
  const ms: number[] = [];
  let failed = 0;
  let error = '';
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const r = await runClippy(['ls'], env, 60_000);
    ms.push(performance.now() - started);
    if (r.code !== 0) {
      failed++;
      error ||= r.stderr.trim().split('\n')[0] ?? '';
    }
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), max: ms[ms.length - 1]!, failed, error };
}

/** Opens one idle connection: resolves with the socket once connected, and a promise of its close. */
function idle(port: number): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<number>((r) => socket.once('close', () => r(performance.now())));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

export async function run(): Promise<void> {
  const d = await TestDaemon.start();
  const flooders: Flooder[] = [];
  try {
    const web = await runClippy(['web', '--json'], d.env.env);
    if (web.code !== 0) throw new Error(`clippy web failed: ${web.stderr}`);
    const { port } = JSON.parse(web.stdout) as { port: number };
    const fdsBefore = openFiles(d.pid);
    process.stdout.write(
      `daemon descriptor limit ${fileLimit(d.pid)}, ${fdsBefore} open; load ${loadAverage()}\n`,
    );
    const rows: [string, Awaited<ReturnType<typeof timeLs>>][] = [];
    rows.push(['nobody on the web port (baseline)', await timeLs(d.env.env)]);

    // Held: the flood of break 3, kept open.
    const t0 = performance.now();
    for (let i = 0; i < FLOODERS; i++) flooders.push(startFlooder(port, FLOOD / FLOODERS, false));
    const allPlaced = (await Promise.all(flooders.map((f) => f.placed))).every(Boolean);
    const placedS = (performance.now() - t0) / 1000;
    const fdsHeld = openFiles(d.pid);
    rows.push([`${FLOOD} idle connections held`, await timeLs(d.env.env)]);
    process.stdout.write(
      `flood of ${FLOOD} ${allPlaced ? 'placed' : 'not all placed (some connects still pending)'} after ${placedS.toFixed(1)} s; ` +
        `the daemon has ${fdsHeld} descriptors open (${fdsHeld - fdsBefore} more than before)\n`,
    );

    for (const f of flooders.splice(0)) f.child.kill('SIGKILL');
    await settle(d.pid, fdsBefore);
    // Reopened as fast as they are closed.
    for (let i = 0; i < FLOODERS; i++) flooders.push(startFlooder(port, FLOOD / FLOODERS, true));
    await Promise.all(flooders.map((f) => f.placed));
    const cpuFrom = processCpuSeconds(d.pid);
    const wallFrom = performance.now();
    rows.push([`${FLOOD} connections reopened as closed`, await timeLs(d.env.env)]);
    const daemonCpu =
      (processCpuSeconds(d.pid) - cpuFrom) / ((performance.now() - wallFrom) / 1000);
    const fdsChurn = openFiles(d.pid);
    for (const f of flooders.splice(0)) f.child.kill('SIGKILL');

    await settle(d.pid, fdsBefore);

    // At the cap: the time from one more connection to the close of the oldest waiting one.
    const mine = [];
    for (let i = 0; i < CAP; i++) mine.push(await idle(port));
    const newcomerAt = performance.now();
    const newcomer = await idle(port);
    const pushedOut = await within(
      Promise.race([mine[0]!.closed, newcomer.closed.then(() => NaN)]),
      WAIT_CLOSE_MS,
    );
    for (const w of [...mine, newcomer]) w.socket.destroy();
    await settle(d.pid, fdsBefore);

    // One idle connection alone, and the time until the daemon closes it.
    const lone = await idle(port);
    const loneAt = performance.now();
    const loneClosed = await within(lone.closed, WAIT_CLOSE_MS);
    lone.socket.destroy();

    const base = rows[0]![1].p50;
    process.stdout.write(
      `\n${'clippy ls'.padEnd(40)} ${'p50'.padStart(9)} ${'max'.padStart(9)} ${'vs base'.padStart(8)} failed\n`,
    );
    for (const [name, r] of rows) {
      process.stdout.write(
        `${name.padEnd(40)} ${`${r.p50.toFixed(0)} ms`.padStart(9)} ${`${r.max.toFixed(0)} ms`.padStart(9)} ` +
          `${`${(r.p50 / base).toFixed(2)}x`.padStart(8)} ${r.failed}/${RUNS}${r.error ? ` (${r.error})` : ''}\n`,
      );
    }
    process.stdout.write(
      `\nwhile reopened: the daemon has ${fdsChurn} descriptors open (${fdsChurn - fdsBefore} more than before) and uses ${(daemonCpu * 100).toFixed(0)} % of a core\n` +
        `at the cap (${CAP}), the oldest waiting connection is closed ${after(pushedOut, newcomerAt)} a newcomer connected\n` +
        `an idle connection alone is closed ${after(loneClosed, loneAt)} it connected\n`,
    );
  } finally {
    for (const f of flooders) f.child.kill('SIGKILL');
    await d.stop();
  }
}

if (isMain(import.meta.url)) await run();
