/**
 * Output throughput of a session with turn detection on versus off, same run: a producer
 * writes OUTPUT_BYTES of text lines as fast as the PTY takes them; we time it from spawn to the
 * `session_exited` event. Detection off = a daemon started with CLIPPY_TURN_DETECTION=off.
 * Target: on ≥ 0.8 × off, for a line preset and a screen preset.
 */
import { readFileSync } from 'node:fs';
import type { ClippyClient } from '@clippy/client';
import { DaemonEnv, TestDaemon, fmt } from './_turns-common.js';

/** Bytes each run produces: big enough that start-up is noise (tens of MB). */
const OUTPUT_BYTES = 32 * 1024 * 1024;
/** Runs per configuration; the best is kept (least disturbed by the machine). */
const REPEATS = 5;

const PRODUCER = `
const line = 'output line with some text in it, like an agent streaming an answer .......... 0123456789\\n';
const total = ${OUTPUT_BYTES};
let sent = 0;
function go() {
  while (sent < total) {
    sent += line.length * 64;
    if (!process.stdout.write(line.repeat(64))) return process.stdout.once('drain', go);
  }
}
go();
`;

/** CPU time (user + system, ms) a process has used so far, from /proc; null where there is none. */
function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS_PER_S = 100;

interface Sample {
  wallMs: number;
  /** Broker CPU for the run: robust against other load on the machine, unlike wall time. */
  cpuMs: number | null;
}

async function once(c: ClippyClient, pid: number, preset: string, i: number): Promise<Sample> {
  const name = `p${preset}${i}`;
  const exited = new Promise<void>((resolve) => {
    const off = c.on('session_exited', (m) => {
      if (m.name === name) {
        off();
        resolve();
      }
    });
  });
  const started = performance.now();
  const cpu0 = cpuMs(pid);
  await c.request('spawn', { command: process.execPath, args: ['-e', PRODUCER], name, preset });
  await exited;
  // The broker answers only after it has worked off what the output queued (screen, detector).
  await c.request('daemon_status', {});
  const cpu1 = cpuMs(pid);
  return {
    wallMs: performance.now() - started,
    cpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
  };
}

/** Both daemons run side by side and their runs alternate, so drift of the machine hits both. */
async function compare(preset: string): Promise<{ off: Sample; on: Sample }> {
  const daemons = await Promise.all([
    TestDaemon.start({ env: new DaemonEnv({ CLIPPY_TURN_DETECTION: 'off' }) }),
    TestDaemon.start({ env: new DaemonEnv() }),
  ]);
  try {
    const clients = await Promise.all(daemons.map((d) => d.connect()));
    for (const c of clients) await c.request('subscribe', { events: ['session_exited'] });
    const best: Sample[] = [
      { wallMs: Infinity, cpuMs: Infinity },
      { wallMs: Infinity, cpuMs: Infinity },
    ];
    for (let i = 0; i < REPEATS; i++) {
      for (const k of [0, 1]) {
        const s = await once(clients[k]!, daemons[k]!.pid, preset, i);
        best[k]!.wallMs = Math.min(best[k]!.wallMs, s.wallMs);
        best[k]!.cpuMs =
          s.cpuMs === null || best[k]!.cpuMs === null ? null : Math.min(best[k]!.cpuMs!, s.cpuMs);
      }
    }
    for (const c of clients) await c.close();
    return { off: best[0]!, on: best[1]! };
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
  }
}

export async function run(): Promise<void> {
  const mb = OUTPUT_BYTES / 1024 / 1024;
  for (const preset of ['generic', 'claude']) {
    const { off, on } = await compare(preset);
    const rate = (ms: number) => (mb / (ms / 1000)).toFixed(1);
    let line =
      `${preset.padEnd(8)} ${mb} MiB: wall: off ${fmt(off.wallMs)} (${rate(off.wallMs)} MiB/s), ` +
      `on ${fmt(on.wallMs)} (${rate(on.wallMs)} MiB/s) → on/off ${(off.wallMs / on.wallMs).toFixed(2)}×`;
    if (off.cpuMs !== null && on.cpuMs !== null) {
      // All of the broker's threads (line detection runs in a worker): the price of detection.
      line += `; broker CPU: off ${fmt(off.cpuMs)}, on ${fmt(on.cpuMs)} (+${(100 * (on.cpuMs / off.cpuMs - 1)).toFixed(0)}%)`;
    }
    process.stdout.write(`${line}; target on/off wall ≥ 0.8×\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
