import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { otherRelease } from '@clippy/testkit/other-release';
import { bins, repoRoot } from '@clippy/testkit/paths';

// End-to-end: a CLI newer than the daemon that runs (same protocol, another release), as after
// `npm install -g` of a new clippy while the old daemon keeps its sessions. The old daemon is
// the real one, copied with an older version in its package.json and started through
// CLIPPYD_PATH, as an older install would have started it.

/** Per test: two daemon starts and a restart on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;
/** The release the copied daemon claims to be. */
const OLD_VERSION = '0.0.1';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

describe('a CLI newer than the running daemon', () => {
  it(
    'says so once, in daemon status and doctor every time, and daemon restart brings the new one',
    async () => {
      const e = new DaemonEnv();
      cleanups.push(() => e.dispose());
      const started = await runClippy(['daemon', 'start'], {
        ...e.env,
        CLIPPYD_PATH: otherRelease(e.root, { version: OLD_VERSION }),
      });
      expect(started.code, started.stderr).toBe(0);
      const oldPid = Number(/pid (\d+)/.exec(started.stdout)?.[1]);
      e.track(oldPid);
      const mine = JSON.parse(
        fs.readFileSync(path.join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8'),
      ).version as string;

      const first = await runClippy(['ls'], e.env);
      expect(first.code).toBe(0);
      expect(first.stderr).toBe(
        `clippy: note: the running clippy daemon (pid ${oldPid}) is clippy ${OLD_VERSION}, this is clippy ${mine}. ` +
          `Run \`clippy daemon restart\` to run ${mine} (its sessions end then: the daemon owns their terminals ` +
          'and a new daemon cannot take them over). `clippy daemon status` says it again.\n' +
          'no sessions\n',
      );
      // Once: the next commands are quiet.
      expect((await runClippy(['ls'], e.env)).stderr).toBe('no sessions\n');

      const status = await runClippy(['daemon', 'status'], e.env);
      expect(status.stdout).toMatch(new RegExp(`version\\s+${OLD_VERSION} \\(protocol \\d+\\)`));
      expect(status.stdout).toMatch(
        /UPGRADE\s+the running clippy daemon .*`clippy daemon restart`/,
      );
      const doctor = JSON.parse((await runClippy(['doctor', '--json'], e.env)).stdout);
      const daemon = doctor.checks.find((c: { name: string }) => c.name === 'daemon');
      expect(daemon).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining(`runs clippy ${OLD_VERSION}, this CLI is ${mine}`),
        fix: expect.stringContaining('`clippy daemon restart`'),
      });

      // A live session: restart says what it costs and waits for --force.
      expect((await runClippy(['new', '-d', '--', 'sleep', '60'], e.env)).code).toBe(0);
      const refused = await runClippy(['daemon', 'restart'], e.env);
      expect(refused.stderr).toContain('restarting ends 1 live session');
      expect(refused.code).toBe(1);
      const restarted = await runClippy(['daemon', 'restart', '--force'], e.env);
      expect(restarted.code).toBe(0);
      const newPid = Number(/started \(pid (\d+)\)/.exec(restarted.stdout)?.[1]);
      e.track(newPid);
      expect(newPid).not.toBe(oldPid);
      const after = JSON.parse((await runClippy(['daemon', 'status', '--json'], e.env)).stdout);
      expect(after).toMatchObject({ package_version: mine, cli_version: mine, upgrade: null });
      expect((await runClippy(['ls'], e.env)).stderr).not.toContain('note:');
      expect(e.env.CLIPPYD_PATH).toBe(bins.clippyd);
    },
    E2E_TIMEOUT_MS,
  );
});
