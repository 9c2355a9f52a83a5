/**
 * Daemon memory: RSS of clippyd with no session (baseline), with 100 idle sessions, and with 20
 * sessions each printing continuously for ~10 s (no client attached, so everything goes to the
 * screen models and turn detectors). Prints MiB and per-session figures; asserts nothing.
 * Needs `npm run build`.
 */
import fs from 'node:fs';
import type { ClippyClient } from '@clippy/client';
import { TestDaemon } from '@clippy/testkit/daemon';
import { isMain, processCpuSeconds } from './_common.js';

const IDLE_SESSIONS = 100;
const BUSY_SESSIONS = 20;
/** How long the busy sessions print. */
const BUSY_SECONDS = 10;
/** Pause for the daemon to settle before reading RSS (timers, GC). */
const SETTLE_MS = 1_500;

/** Resident set size of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

async function spawnMany(
  client: ClippyClient,
  n: number,
  command: string,
  args: string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { session } = await client.request('spawn', { command, args, cols: 120, rows: 40 });
    ids.push(session);
  }
  return ids;
}

async function killAll(client: ClippyClient, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map((session) => client.request('kill', { session, signal: 'SIGKILL', remove: true })),
  );
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { sessions } = await client.request('list_sessions', {});
    if (sessions.length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(): Promise<void> {
  const daemon = await TestDaemon.start();
  try {
    const client = await daemon.connect();
    await sleep(SETTLE_MS);
    const base = rssMiB(daemon.pid);
    const fromStatus = (await client.request('daemon_status', {})).rss_bytes / 1024 / 1024;
    process.stdout.write(
      `baseline (no session)              ${base.toFixed(1)} MiB  (daemon_status says ${fromStatus.toFixed(1)})\n`,
    );

    const idle = await spawnMany(client, IDLE_SESSIONS, 'sleep', ['600']);
    await sleep(SETTLE_MS);
    const idleRss = rssMiB(daemon.pid);
    process.stdout.write(
      `${IDLE_SESSIONS} idle sessions                   ${idleRss.toFixed(1)} MiB  ` +
        `(+${(idleRss - base).toFixed(1)} MiB, ${(((idleRss - base) * 1024) / IDLE_SESSIONS).toFixed(0)} KiB per session, ` +
        `${(idleRss / base).toFixed(2)}x baseline)\n`,
    );
    await killAll(client, idle);
    await sleep(SETTLE_MS);
    const afterIdle = rssMiB(daemon.pid);
    process.stdout.write(`after killing them                 ${afterIdle.toFixed(1)} MiB\n`);

    const busy = await spawnMany(client, BUSY_SESSIONS, 'sh', [
      '-c',
      'i=0; while :; do i=$((i+1)); echo "line $i: the quick brown fox jumps over the lazy dog"; done',
    ]);
    let peak = 0;
    const samples: number[] = [];
    const cpu0 = processCpuSeconds(daemon.pid);
    for (let s = 0; s < BUSY_SECONDS; s++) {
      await sleep(1_000);
      const r = rssMiB(daemon.pid);
      samples.push(r);
      peak = Math.max(peak, r);
    }
    process.stdout.write(
      `${BUSY_SESSIONS} sessions printing for ${BUSY_SECONDS} s      peak ${peak.toFixed(1)} MiB, last ${samples.at(-1)!.toFixed(1)} MiB ` +
        `(${(peak / base).toFixed(2)}x baseline; per second: ${samples.map((x) => x.toFixed(0)).join(' ')})\n`,
    );
    const cpu = processCpuSeconds(daemon.pid) - cpu0;
    const { sessions } = await client.request('list_sessions', {});
    process.stdout.write(
      `sessions still live: ${sessions.filter((x) => x.state !== 'exited').length}; ` +
        `daemon CPU while they printed: ${cpu.toFixed(1)} s in ${BUSY_SECONDS} s\n`,
    );
    await killAll(client, busy);
    await client.close();
  } finally {
    await daemon.stop();
  }
}

if (isMain(import.meta.url)) await run();
