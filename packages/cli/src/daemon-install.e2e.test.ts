import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '@clippy/protocol';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { until } from '@clippy/testkit/until';
import { programMissing } from '@clippy/testkit/requirements';

// End-to-end: the built `clippy daemon install/uninstall` against a temporary XDG_CONFIG_HOME,
// without touching the machine's systemd (--no-enable; systemctl kept off PATH otherwise).

/** Per test: the CLI and a daemon on a loaded 2-core box. */
const E2E_TIMEOUT_MS = 60_000;
/** How long the unit's daemon may take to answer on its socket. */
const DAEMON_UP_TIMEOUT_MS = 15_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

function freshEnv(): DaemonEnv {
  const e = new DaemonEnv();
  cleanups.push(() => e.dispose());
  return e;
}

const unitFile = (e: DaemonEnv) =>
  path.join(e.env.XDG_CONFIG_HOME!, 'systemd', 'user', 'clippyd.service');

/** ExecStart's words (the unit quotes none of them in a test checkout). */
function execStart(unit: string): string[] {
  const line = unit.split('\n').find((l) => l.startsWith('ExecStart='))!;
  return line.slice('ExecStart='.length).split(' ');
}

describe('clippy daemon install / uninstall (systemd user unit)', () => {
  it(
    'writes a unit that runs clippyd in the foreground, says how to undo it, and uninstall removes it',
    async () => {
      const e = freshEnv();
      const r = await runClippy(['daemon', 'install', '--no-enable'], e.env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`wrote ${unitFile(e)}`);
      expect(r.stdout).toContain('undo: clippy daemon uninstall');
      expect(r.stdout).toContain('journalctl --user -u clippyd.service');
      const unit = fs.readFileSync(unitFile(e), 'utf8');
      expect(execStart(unit)).toEqual([
        process.execPath,
        ...DAEMON_NODE_FLAGS,
        e.env.CLIPPYD_PATH,
        '--foreground',
      ]);
      expect(unit).toContain('WantedBy=default.target');
      const un = await runClippy(['daemon', 'uninstall', '--no-enable'], e.env);
      expect(un.code).toBe(0);
      expect(fs.existsSync(unitFile(e))).toBe(false);
      const again = await runClippy(['daemon', 'uninstall', '--no-enable'], e.env);
      expect(again.stderr).toContain('nothing to uninstall');
      expect(again.code).toBe(1);
    },
    E2E_TIMEOUT_MS,
  );

  it.skipIf(programMissing('systemd-analyze', 'systemd') !== null)(
    'the unit passes systemd-analyze verify without a warning',
    async () => {
      const e = freshEnv();
      expect((await runClippy(['daemon', 'install', '--no-enable'], e.env)).code).toBe(0);
      const v = spawnSync('systemd-analyze', ['verify', unitFile(e)], {
        encoding: 'utf8',
        env: e.env,
      });
      expect(v.stderr.trim()).toBe('');
      expect(v.status).toBe(0);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'without a reachable systemctl: the file is written and the error says how to enable it',
    async () => {
      const e = freshEnv();
      const r = await runClippy(['daemon', 'install', '--now'], { ...e.env, PATH: e.root });
      expect(r.stderr).toContain(`wrote ${unitFile(e)} but could not enable it`);
      expect(r.stderr).toContain('systemctl --user enable --now clippyd.service');
      expect(r.code).toBe(1);
      expect(fs.existsSync(unitFile(e))).toBe(true);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "the unit's daemon is the CLI's: same socket, no second daemon, a second start leaves it be",
    async () => {
      const e = freshEnv();
      await runClippy(['daemon', 'install', '--no-enable'], e.env);
      const [node, ...args] = execStart(fs.readFileSync(unitFile(e), 'utf8'));
      // What systemd would run, in the environment its user manager gives (XDG_RUNTIME_DIR).
      const unitDaemon = spawn(node!, args, { env: e.env, stdio: 'ignore' });
      e.track(unitDaemon.pid!);
      await until(() => fs.existsSync(e.socket), 'the unit daemon listens', DAEMON_UP_TIMEOUT_MS);
      const status = await runClippy(['daemon', 'status', '--json'], e.env);
      expect(JSON.parse(status.stdout).pid).toBe(unitDaemon.pid);
      const ls = await runClippy(['ls'], e.env);
      expect(ls.code).toBe(0);
      expect(JSON.parse((await runClippy(['daemon', 'status', '--json'], e.env)).stdout).pid).toBe(
        unitDaemon.pid,
      );
      // systemd starting it again while one runs: exits 3, which the unit counts as success.
      const second = spawnSync(node!, args, { env: e.env, encoding: 'utf8' });
      expect(second.status).toBe(3);
      expect(fs.readFileSync(unitFile(e), 'utf8')).toContain('SuccessExitStatus=3');
    },
    E2E_TIMEOUT_MS,
  );
});
