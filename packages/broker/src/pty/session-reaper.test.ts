import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../log.js';
import { SessionReaper } from './session-reaper.js';
import { platformMissing } from '@clippy/testkit/requirements';
import { until } from '@clippy/testkit/until';

// Issue 44 item 4: the reaper ends the sessions' processes once the daemon is gone (its pipe
// closes), including processes that ignore SIGHUP and SIGTERM as Gemini CLI's do.

/** Longest the processes may outlive the daemon (issue 44: none left after 10 s). */
const GONE_WITHIN_MS = 10_000;

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0))
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
});

/**
 * A session like an agent's: the leader of its own session and group, ignoring SIGHUP and
 * SIGTERM, with a child that does too, and one that left the group (it keeps the session).
 */
async function stubbornSession(): Promise<ChildProcess> {
  const c = spawn(
    '/bin/sh',
    [
      '-c',
      `trap '' HUP TERM
      sh -c "trap '' HUP TERM; sleep 60" &
      perl -e '$SIG{TERM} = $SIG{HUP} = "IGNORE"; setpgrp(0, 0); sleep 60' &
      echo ready; wait`,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  started.push(c);
  await new Promise((r) => c.stdout!.once('data', r));
  return c;
}

/** Processes of session `sid` (Linux: from /proc), zombies not counted. */
function sessionMembers(sid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[3]) === sid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function goneWithin(sid: number, ms: number): Promise<boolean> {
  return until(() => sessionMembers(sid).length === 0, `session ${sid} gone`, ms).then(
    () => true,
    () => false,
  );
}

describe.skipIf(
  platformMissing(process.platform === 'linux', 'the session reaper (process groups in /proc)') !==
    null,
)('SessionReaper', () => {
  it('ends the listed sessions, ignoring SIGTERM or not, once the daemon’s pipe closes; never one removed from its list', async () => {
    const reaper = new SessionReaper(silentLogger());
    const listed = await stubbornSession();
    const removed = await stubbornSession();
    reaper.add(listed.pid!);
    reaper.add(removed.pid!);
    reaper.remove(removed.pid!);
    expect(sessionMembers(listed.pid!).length).toBeGreaterThanOrEqual(3);
    // The daemon's end, as the reaper sees it (kill -9 closes the same pipe).
    reaper.dispose();
    expect(await goneWithin(listed.pid!, GONE_WITHIN_MS)).toBe(true);
    expect(sessionMembers(removed.pid!).length).toBeGreaterThanOrEqual(3);
  });
});
