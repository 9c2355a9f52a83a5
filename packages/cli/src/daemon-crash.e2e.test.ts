import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '@clippy/protocol';
import { agentCommand } from '@clippy/testkit/agents/index';
import { waitChannelLive, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { platformMissing } from '@clippy/testkit/requirements';
import { until } from '@clippy/testkit/until';

// Issue 44 item 4: no session outlives its daemon by more than a few seconds, however the daemon
// ends (here `kill -9`), even a program that ignores SIGHUP and SIGTERM as Gemini CLI's node
// processes do; the next daemon lists such a session as ended with the daemon, and an agent's
// can be revived. (real-agents-life.e2e.test.ts does the same with the real agents.)

/** Longest a session's processes may outlive a daemon killed with SIGKILL (the bound). */
const GONE_WITHIN_MS = 10_000;
/** Two daemons, two agents started and asked on a loaded 2-core machine: a deadline only. */
const SCENARIO_MS = 240_000;

/** Processes of session `sid` (Linux: from /proc), zombies not counted. */
function sessionMembers(sid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[3]) === sid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const env = new DaemonEnv();
afterAll(() => env.dispose());

describe.skipIf(
  platformMissing(process.platform === 'linux', 'counting a session’s processes in /proc') !== null,
)('a daemon killed with SIGKILL', { timeout: SCENARIO_MS }, () => {
  it('takes its sessions with it within seconds, deaf ones too; the next daemon says so and revives the agent', async () => {
    const d1 = await TestDaemon.start({ env });
    const c1 = await d1.connect();
    const { command, args } = agentCommand('claude', ['--hooks']);
    await c1.request('spawn', {
      command,
      args,
      name: 'agent',
      preset: 'claude',
      cwd: env.root,
      env: env.env as Record<string, string>,
      persist: true,
    });
    // Deaf to the terminal's hang-up and to SIGTERM, with a child that is too.
    await c1.request('spawn', {
      command: '/bin/sh',
      args: ['-c', `trap '' HUP TERM; sh -c "trap '' HUP TERM; sleep 300" & echo up; wait`],
      name: 'deaf',
      preset: 'generic',
      cwd: env.root,
      persist: true,
    });
    await waitState(c1, 'agent', 'idle');
    await waitChannelLive(c1, 'agent');
    const asked = await runClippy(['ask', 'agent', 'first question'], env.env);
    expect(asked.code, asked.stderr).toBe(0);
    const { sessions } = await c1.request('list_sessions', {});
    const pids = sessions.map((s) => s.pid);
    expect(pids.every((pid) => sessionMembers(pid).length > 0)).toBe(true);
    await c1.close();

    process.kill(d1.pid, 'SIGKILL');
    await d1.exited;
    await until(
      () => pids.every((pid) => sessionMembers(pid).length === 0),
      'the sessions gone',
      GONE_WITHIN_MS,
    ).catch(() => {}); // the assertion below names who is left
    expect(pids.flatMap(sessionMembers)).toEqual([]);

    const d2 = await TestDaemon.start({ env });
    try {
      const ls = await runClippy(['ls', '-a'], env.env);
      expect(ls.stdout).toMatch(/deaf\s.*exited\(with daemon\) restored/u);
      const c2 = await d2.connect();
      const listed = (await c2.request('list_sessions', {})).sessions;
      const agent = listed.find((s) => s.name === 'agent') as SessionInfo;
      expect(agent).toMatchObject({ ended_with_daemon: true, revivable: true });
      const revived = await runClippy(['revive', 'agent', '-d'], env.env);
      expect(revived.code, revived.stderr).toBe(0);
      await waitState(c2, 'agent', 'idle');
      const again = await runClippy(['ask', 'agent', 'second question'], env.env);
      expect(again.code, again.stderr).toBe(0);
      await c2.close();
    } finally {
      await d2.stop();
    }
  });
});
