/**
 * Turns kept across kill -9 / restart cycles of the real daemon with persistence on (`npm run
 * bench -- kill-restart`). Each cycle, as a user would: `clippy new -d --persist` (the real CLI,
 * which starts a daemon when none answers) runs a fake agent; a client keeps asking it
 * questions and counts the turns the daemon announces (`turn_completed`); after a few, the
 * daemon is killed with SIGKILL while turns keep completing, and the next cycle's `clippy`
 * command starts the next daemon at once (the last one may still be exiting). At the end every
 * announced turn is looked up in the last daemon. Prints turns announced, kept and lost, the
 * restarts that came up without their history, and the ratio kept ÷ announced (the baseline:
 * every turn announced). Asserts nothing. Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { isMain, loadAverage } from './_common.js';

/** Kill -9 / restart cycles (the figure is for 20). */
const CYCLES = Number(process.env.BENCH_CYCLES ?? 20);
/** Turns announced in a cycle before its daemon is killed: varied, so kills land anywhere. */
const turnsBeforeKill = (cycle: number) => 3 + (cycle % 5);
/** Tries of a cycle's `clippy new` when the daemon it started did not answer in time. */
const START_ATTEMPTS = 3;
/** Longest one `clippy` command or one turn may take on a loaded machine. */
const STEP_TIMEOUT_MS = 60_000;

function clippy(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bins.clippy, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, STEP_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, out, timedOut });
    });
  });
}

/** Asks questions one after another until the daemon goes away. */
async function drive(c: ClippyClient, session: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      const { turns } = await c.request('list_turns', { session, limit: 1 });
      await c.request('send', { session, text: `question ${i} of ${session}`, enter: true });
      await c.request(
        'wait_turn',
        { session, after: turns[0]?.turn_id ?? `${session}:0`, timeout_ms: STEP_TIMEOUT_MS },
        { timeoutMs: 0 },
      );
    } catch {
      return; // killed
    }
  }
}

export async function run(): Promise<void> {
  const env = new DaemonEnv();
  const announced = new Set<string>();
  let withoutHistory = 0;
  let slowStarts = 0;
  try {
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const name = `k${cycle}`;
      const { command, args } = agentCommand('aider', ['--log', join(env.root, `${name}.log`)]);
      let made = { code: 1, out: '', timedOut: false };
      for (let attempt = 0; attempt < START_ATTEMPTS && made.code !== 0; attempt++) {
        made = await clippy(
          ['new', '-d', '--persist', '--preset', 'aider', '--name', name, '--', command, ...args],
          env.env,
        );
        // A daemon slower to start than the CLI waits (a loaded machine): run it again.
        if (made.timedOut || /did not answer within/.test(made.out)) slowStarts++;
        else break;
      }
      if (made.code !== 0) {
        // Without its history the daemon refuses --persist (as it should): counted.
        if (/history is unavailable/.test(made.out)) withoutHistory++;
        process.stdout.write(`cycle ${cycle}: ${made.out.trim()}\n`);
        continue;
      }
      const c = await env.connect();
      const status = await c.request('daemon_status', {});
      env.track(status.pid);
      if (!status.store) withoutHistory++;
      await c.request('subscribe', { events: ['turn_completed'] });
      let inCycle = 0;
      const enough = new Promise<void>((resolve) => {
        c.on('turn_completed', (ev) => {
          announced.add(ev.turn.turn_id);
          if (++inCycle >= turnsBeforeKill(cycle)) resolve();
        });
      });
      const driving = drive(c, name);
      await enough;
      // Killed while its agent is answering; the next cycle starts the next daemon at once.
      process.kill(status.pid, 'SIGKILL');
      void driving.then(() => c.close().catch(() => {}));
    }
    // The last daemon, started as any command starts one (again if it was slow to answer).
    for (let attempt = 0; attempt < START_ATTEMPTS; attempt++)
      if ((await clippy(['ls', '-a'], env.env)).code === 0) break;
    const c = await env.connect();
    const status = await c.request('daemon_status', {});
    env.track(status.pid);
    let kept = 0;
    for (const id of announced) {
      try {
        await c.request('get_turn', { turn_id: id });
        kept++;
      } catch {
        // lost
      }
    }
    await c.close();
    const logFile = join(env.env.XDG_STATE_HOME!, 'clippy', 'clippyd.log');
    const waits = existsSync(logFile)
      ? readFileSync(logFile, 'utf8').split('waiting for the history lock').length - 1
      : 0;
    const lost = announced.size - kept;
    process.stdout.write(
      [
        `kill -9 / restart cycles:        ${CYCLES} (load ${loadAverage()})`,
        `turns announced (baseline):      ${announced.size}`,
        `turns kept after the last:       ${kept} (${((kept / announced.size) * 100).toFixed(1)}% = ${(kept / announced.size).toFixed(3)}× the baseline)`,
        `turns lost:                      ${lost}`,
        `restarts without their history:  ${withoutHistory}`,
        `restarts that waited for a lock: ${waits}`,
        `daemon starts slower than the CLI waits (command run again): ${slowStarts}`,
        '',
      ].join('\n'),
    );
  } finally {
    await env.dispose();
  }
}

if (isMain(import.meta.url)) await run();
