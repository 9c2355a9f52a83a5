import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo } from '@clippy/protocol';
import { agentCommand } from '@clippy/testkit/agents/index';
import { waitChannelLive, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DAEMON_READY_TIMEOUT_MS, DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, makeRepo } from '@clippy/testkit/git';
import { eventually } from '@clippy/testkit/until';

// Issue 44 item 7: what a revived session says of itself. Its earlier turns stay read, `report`
// keeps its first start and its own command line (not the resume's), a `kill` that removed it
// is explained at `revive` (with `kill --keep`), and `rm` of a live session with a worktree
// gives advice that works. With the fake Claude Code, which runs the hooks clippy wires.

let d: TestDaemon;
let c: ClippyClient;
beforeAll(async () => {
  d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
  c = await d.connect();
}, 2 * DAEMON_READY_TIMEOUT_MS);
afterAll(async () => {
  await c?.close();
  await d?.stop();
});

const clippy = (args: string[]) => runClippy(args, d.env.env);

async function listed(name: string): Promise<SessionInfo> {
  const { sessions } = await c.request('list_sessions', {});
  const s = sessions.find((x) => x.name === name);
  if (!s) throw new Error(`${name} is not listed`);
  return s;
}

/**
 * Starts the fake Claude Code (its hooks wired) as `name`, in the daemon's folder (it writes its
 * transcripts where it runs), and waits for its channel.
 */
async function start(name: string): Promise<string[]> {
  const { command, args } = agentCommand('claude', [
    '--hooks',
    '--log',
    path.join(d.env.root, `${name}.log`),
  ]);
  const r = await clippy([
    'new',
    '-d',
    '--name',
    name,
    '--cwd',
    d.env.root,
    '--preset',
    'claude',
    '--',
    command,
    ...args,
  ]);
  expect(r.code, r.stderr).toBe(0);
  await waitState(c, name, 'idle');
  await waitChannelLive(c, name);
  return [command, ...args];
}

/** Fake agents started, asked, killed and revived, many CLI runs: a deadline only. */
const SCENARIO_MS = 240_000;

describe('after a revive', { timeout: SCENARIO_MS }, () => {
  it('earlier turns stay read; report keeps the first start and the session’s own command', async () => {
    const argv = await start('rv');
    for (const q of ['first question', 'second question']) {
      const r = await clippy(['ask', 'rv', q]);
      expect(r.code, r.stderr).toBe(0);
    }
    const before = await listed('rv');
    expect(before.unread).toBe(0);
    process.kill(before.pid, 'SIGKILL');
    await waitState(c, 'rv', 'exited');
    // Without a terminal (stdin is /dev/null), revive refuses to attach before the agent starts
    // again, as new does: nothing runs behind the error.
    const refused = await clippy(['revive', 'rv']);
    expect(refused.stderr).toBe(
      'clippy: revive (it attaches) needs a terminal, and stdin is not one (start it detached: clippy revive -d)\n',
    );
    expect(refused.code).toBe(1);
    expect((await listed('rv')).state).toBe('exited');
    const revived = await clippy(['revive', 'rv', '-d', '--json']);
    expect(revived.code, revived.stderr).toBe(0);
    await waitState(c, 'rv', 'idle');
    const after = await listed('rv');
    expect(after).toMatchObject({ turn_count: 2, unread: 0, created_at: before.created_at });
    // A turn after the revive is unread until read, as any.
    const third = await clippy(['send', 'rv', 'third question', '--enter']);
    expect(third.code, third.stderr).toBe(0);
    // (Not `wait_turn`: a turn someone waits for is read.)
    await eventually(async () => (await listed('rv')).turn_count === 3, 'the third turn', 20_000);
    expect((await listed('rv')).unread).toBe(1);

    const report = await clippy(['report', 'rv']);
    expect(report.code, report.stderr).toBe(0);
    const json = JSON.parse(report.stdout) as {
      task: string;
      clippy: { session: { created_at: string } };
    };
    expect(json.task).not.toContain('--resume');
    expect(json.task).toContain(path.basename(argv[1]!));
    expect(json.clippy.session.created_at).toBe(new Date(before.created_at).toISOString());
    expect((await clippy(['kill', 'rv'])).code).toBe(0);
  });

  it('two revives sent at once: the session comes back once, the other is refused, one agent runs', async () => {
    // A revive waits for the spawner to start the agent: both may pass their checks before
    // either session is back, and the second must still not leave a second agent running.
    await start('twice');
    expect((await clippy(['ask', 'twice', 'a question'])).code).toBe(0);
    process.kill((await listed('twice')).pid, 'SIGKILL');
    await waitState(c, 'twice', 'exited');
    const answers = await Promise.allSettled(
      [1, 2].map(() => c.request('revive', { session: 'twice' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = answers.find((a) => a.status === 'rejected')!;
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'not_revivable' });
    await waitState(c, 'twice', 'idle');
    const { sessions } = await c.request('list_sessions', {});
    expect(sessions.filter((s) => s.name === 'twice' && s.state !== 'exited')).toHaveLength(1);
    // The fake agent of the refused revive was ended: one process logs to twice.log.
    const log = path.join(d.env.root, 'twice.log');
    const agents = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(log);
          } catch {
            return false;
          }
        });
    await eventually(() => agents().length === 1, 'one agent process', 10_000);
    expect((await clippy(['kill', 'twice'])).code).toBe(0);
  });

  it('`kill` then `revive` says the session was removed, and that `kill --keep` keeps one', async () => {
    await start('gone');
    expect((await clippy(['ask', 'gone', 'a question'])).code).toBe(0);
    expect((await clippy(['kill', 'gone'])).code).toBe(0);
    const r = await clippy(['revive', 'gone', '-d']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('removed by `clippy kill`');
    expect(r.stderr).toContain('clippy kill --keep gone');
    // Kept, it can be revived.
    await start('kept');
    expect((await clippy(['ask', 'kept', 'a question'])).code).toBe(0);
    expect((await clippy(['kill', '--keep', 'kept'])).code).toBe(0);
    await waitState(c, 'kept', 'exited');
    const back = await clippy(['revive', 'kept', '-d']);
    expect(back.code, back.stderr).toBe(0);
    await waitState(c, 'kept', 'idle');
    expect((await clippy(['kill', 'kept'])).code).toBe(0);
  });

  it('`rm` of a live session with a worktree advises commands that remove it', async () => {
    const repo = makeRepo(path.join(d.env.root, 'repo'));
    const r = await runClippy(
      ['new', '-d', '--name', 'wt', '--worktree', '--cwd', repo, '--', 'sh'],
      d.env.env,
    );
    expect(r.code, r.stderr).toBe(0);
    const rm = await clippy(['rm', 'wt']);
    expect(rm.code).not.toBe(0);
    // Follow the advice, word for word.
    const steps = [...rm.stderr.matchAll(/`clippy ([^`]+)`/gu)].map((m) => m[1]!.split(' '));
    expect(steps).toEqual([
      ['kill', 'wt'],
      ['rm', 'wt'],
    ]);
    for (const step of steps) {
      const done = await clippy(step);
      expect(done.code, `${step.join(' ')}: ${done.stderr}`).toBe(0);
      if (step[0] === 'kill') await waitState(c, 'wt', 'exited');
    }
    const { sessions } = await c.request('list_sessions', {});
    expect(sessions.find((s) => s.name === 'wt')).toBeUndefined();
  });
});
