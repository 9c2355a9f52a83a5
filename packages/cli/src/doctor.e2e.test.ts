import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@clippy/protocol';
import { askTurn, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { DESKTOP_VARS } from '@clippy/testkit/env';
import { otherRelease } from '@clippy/testkit/other-release';

// End-to-end: the built `clippy doctor` against real sockets and files. Each failing check is
// produced on purpose and must give its message, its fix and exit 1.

/** Per test: a daemon, or a doctor run loading node-pty in a child, on a loaded 2-core box. */
const E2E_TIMEOUT_MS = 60_000;
/** The clipboard test: two daemons, each with a shell that answers one turn. */
const CLIPBOARD_TIMEOUT_MS = 120_000;
/**
 * The old-daemon test: a copied release's daemon, then this release's, and seven CLI runs (three
 * doctor runs among them): 55 s at a load average of 14, against 60 s for the others.
 */
const OLD_DAEMON_TIMEOUT_MS = 120_000;
/** A shell's first prompt and one answer, on a loaded 2-core box. */
const ASK_TIMEOUT_MS = 30_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

/**
 * A fresh environment, disposed after the test: by the file's afterEach, or, for a concurrent
 * test (the file's afterEach runs when any test ends), by the test's own `onTestFinished`.
 */
function freshEnv(onTestFinished?: (fn: () => Promise<void>) => void): DaemonEnv {
  const e = new DaemonEnv();
  if (onTestFinished) onTestFinished(() => e.dispose());
  else cleanups.push(() => e.dispose());
  return e;
}

describe('clippy doctor', () => {
  it(
    'says all is well and exits 0 beside a live daemon of the same version',
    async () => {
      const d = await TestDaemon.start();
      cleanups.push(() => d.stop());
      // Two looks at one state (each a node start-up and its checks): run at once.
      const [r, asJson] = await Promise.all([
        runClippy(['doctor'], d.env.env),
        runClippy(['doctor', '--json'], d.env.env),
      ]);
      expect(r.stdout).toContain('all is well');
      expect(r.stdout).toMatch(/ok\s+daemon\s+pid \d+/);
      expect(r.code).toBe(0);
      const json = JSON.parse(asJson.stdout);
      expect(json.ok).toBe(true);
      expect(json.checks.map((c: { name: string }) => c.name)).toEqual(
        expect.arrayContaining(['node', 'node-pty', 'socket dir', 'daemon', 'config', 'presets']),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'clipboard: says what deliver --sink clipboard will use, from the daemon’s environment',
    async () => {
      // xclip and xsel first on PATH (stand-ins that keep what they are given), and a daemon
      // without $DISPLAY.
      const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-bin-'));
      cleanups.push(() => fs.rmSync(bin, { recursive: true, force: true }));
      const copied = path.join(bin, 'copied.txt');
      for (const tool of ['xclip', 'xsel'])
        fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\ncat > ${copied}\n`, { mode: 0o755 });
      const start = async (display: string | undefined): Promise<NodeJS.ProcessEnv> => {
        const e = new DaemonEnv({ PATH: `${bin}:${process.env.PATH}` });
        for (const v of DESKTOP_VARS) delete e.env[v];
        if (display) e.env.DISPLAY = display;
        const d = await TestDaemon.start({ env: e });
        cleanups.push(() => d.stop());
        // A turn in the relay buffer, made through a client (`new`, `ask` and `capture` are not
        // the subject: a CLI process costs a second of CPU on a loaded machine).
        const c = await d.connect();
        try {
          await c.request('spawn', {
            command: 'bash',
            args: ['--norc', '--noprofile'],
            name: 'sh',
            preset: 'bash',
            cwd: process.cwd(),
            env: e.env as Record<string, string>,
          });
          await waitState(c, 'sh', 'idle', ASK_TIMEOUT_MS);
          await askTurn(c, 'sh', 'echo to-copy', ASK_TIMEOUT_MS);
          await c.request('capture', { session: 'sh' });
        } finally {
          await c.close();
        }
        return e.env;
      };
      const clipboardCheck = async (env: NodeJS.ProcessEnv) => {
        const r = await runClippy(['doctor', '--json'], env);
        return JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === 'clipboard');
      };

      // Two daemons of their own (one without a display, one with): set up at once.
      const [noDisplay, withDisplay] = await Promise.all([start(undefined), start(':99')]);
      // This shell has a display; the daemon, which copies, has none. Both asked at once.
      const [check, withCheck] = await Promise.all([
        clipboardCheck({ ...noDisplay, DISPLAY: ':99' }),
        clipboardCheck(withDisplay),
      ]);
      expect(check.status).toBe('warn');
      expect(check.detail).toMatch(
        /^deliver --sink clipboard: OSC 52 through an attached terminal, and none is attached now: it fails \(.*xclip is installed but needs \$DISPLAY, unset in the daemon's environment; xsel is installed but needs \$DISPLAY/,
      );
      expect(check.fix).toContain('clippy daemon restart');
      // As doctor said: no clipboard.
      const failed = await runClippy(['deliver', '--sink', 'clipboard'], noDisplay);
      expect(failed.stderr).toMatch(/osc52: no client is attached/);
      expect(failed.code).toBe(1);
      expect(fs.existsSync(copied)).toBe(false);

      expect(withCheck.detail).toMatch(/^deliver --sink clipboard: xclip;/);
      const delivered = await runClippy(['deliver', '--sink', 'clipboard'], withDisplay);
      expect(delivered.code).toBe(0);
      expect(fs.readFileSync(copied, 'utf8')).toContain('to-copy');
    },
    CLIPBOARD_TIMEOUT_MS,
  );

  it.concurrent(
    'a socket directory others can enter: names its mode and says chmod 700',
    async ({ expect, onTestFinished }) => {
      const e = freshEnv(onTestFinished);
      const dir = path.dirname(e.socket);
      fs.mkdirSync(dir, { mode: 0o755 });
      fs.chmodSync(dir, 0o755);
      const r = await runClippy(['doctor'], e.env);
      expect(r.stdout).toMatch(/FAIL\s+socket dir .* has mode 755/);
      expect(r.stdout).toContain(`fix: chmod 700 ${dir}`);
      expect(r.code).toBe(1);
    },
    E2E_TIMEOUT_MS,
  );

  it.concurrent(
    'a socket left by a killed daemon: says nothing listens and how it is replaced',
    async ({ expect, onTestFinished }) => {
      const e = freshEnv(onTestFinished);
      fs.mkdirSync(path.dirname(e.socket), { mode: 0o700 });
      // A process that listens on the socket and is killed: the file stays behind.
      const holder = spawn(process.execPath, [
        '-e',
        `require('net').createServer().listen(${JSON.stringify(e.socket)}, () => console.log('up'))`,
      ]);
      await new Promise((r) => holder.stdout.once('data', r));
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
      expect(fs.existsSync(e.socket)).toBe(true);
      const r = await runClippy(['doctor', '--json'], e.env);
      const socket = JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === 'socket');
      expect(socket.status).toBe('fail');
      expect(socket.detail).toContain('nothing listens on it (ECONNREFUSED)');
      expect(socket.fix).toContain('clippy daemon start');
      expect(r.code).toBe(1);
    },
    E2E_TIMEOUT_MS,
  );

  it.concurrent(
    'a broken config.json and presets.json: the file, the line and the reason',
    async ({ expect, onTestFinished }) => {
      const e = freshEnv(onTestFinished);
      const dir = path.join(e.env.XDG_CONFIG_HOME!, 'clippy');
      fs.mkdirSync(dir);
      fs.writeFileSync(
        path.join(dir, 'config.json'),
        '{\n  "hosts": {},\n  "turnRingDepth": "many"\n}\n',
      );
      fs.writeFileSync(
        path.join(dir, 'presets.json'),
        JSON.stringify({ mine: { kind: 'line', pattern: '(unclosed' } }, null, 2),
      );
      const r = await runClippy(['doctor'], e.env);
      expect(r.stdout).toMatch(/FAIL\s+config\s+\S*config\.json:3:/);
      expect(r.stdout).toMatch(/FAIL\s+presets\s+.*mine/);
      expect(r.stdout).toContain('2 problems found');
      expect(r.code).toBe(1);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'an old daemon (another protocol version): doctor and ls say so, daemon restart --force replaces it',
    async () => {
      const e = freshEnv();
      // The real daemon as the previous protocol version's release would run it.
      const old = await TestDaemon.start({
        env: e,
        bin: otherRelease(e.root, { version: '0.0.1', protocolVersion: PROTOCOL_VERSION - 1 }),
      });
      // Three looks that change nothing (restart without --force refuses): run at once.
      const [doctor, ls, restart] = await Promise.all([
        runClippy(['doctor'], e.env),
        runClippy(['ls'], e.env),
        runClippy(['daemon', 'restart'], e.env),
      ]);
      expect(doctor.stdout).toMatch(
        new RegExp(
          `FAIL\\s+daemon\\s+the running daemon \\(pid ${old.pid}\\) does not speak protocol ${PROTOCOL_VERSION}`,
        ),
      );
      expect(doctor.stdout).toContain('clippy daemon restart --force');
      expect(doctor.code).toBe(1);
      expect(ls.stderr).toContain(`speaks protocol version ${PROTOCOL_VERSION - 1}`);
      expect(ls.stderr).toContain('clippy daemon restart --force');
      expect(ls.stderr).toContain('Its sessions end then');
      expect(ls.code).toBe(69);
      // Without --force, restart says what it would cost and does nothing.
      expect(restart.stderr).toContain('restarting ends its sessions');
      expect(restart.code).toBe(1);
      expect(
        await Promise.race([old.exited.then(() => 'exited'), Promise.resolve('running')]),
      ).toBe('running');
      // With it, the old daemon goes and this release's takes the socket.
      const forced = await runClippy(['daemon', 'restart', '--force'], e.env);
      expect(forced.code).toBe(0);
      await old.exited;
      await e.discoverPid();
      const [statusRun, after] = await Promise.all([
        runClippy(['daemon', 'status', '--json'], e.env),
        runClippy(['doctor'], e.env),
      ]);
      expect(JSON.parse(statusRun.stdout).version).toBe(PROTOCOL_VERSION);
      expect(after.code).toBe(0);
    },
    OLD_DAEMON_TIMEOUT_MS,
  );
});
