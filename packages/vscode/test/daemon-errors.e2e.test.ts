import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@clippy/protocol';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { otherRelease } from '@clippy/testkit/other-release';
import {
  eventually,
  messageShown,
  run,
  startExtension,
  statusText,
  viewRows,
  welcomeShown,
  type Running,
} from './harness.js';
import { editor } from './vscode-double.js';

// When there is no daemon, or not one the extension can use: one clear message in the editor
// (never a hang, never a stack trace), and the view says why. Also: starting the daemon as the
// CLI does, and following a daemon that went away and one that came.

const envs: DaemonEnv[] = [];
const servers: net.Server[] = [];
const held: net.Socket[] = [];
let ext: Running | undefined;

afterEach(async () => {
  delete process.env.ELECTRON_RUN_AS_NODE;
  delete process.env.VSCODE_PID;
  ext?.stop();
  ext = undefined;
  for (const s of held.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
  for (const e of envs.splice(0)) await e.dispose();
  editor.clearRecords();
  editor.viewVisible = false;
});

function freshEnv(): DaemonEnv {
  const e = new DaemonEnv();
  envs.push(e);
  return e;
}

/** A server on the environment's socket that does `onConnection` with each connection. */
async function listen(e: DaemonEnv, onConnection: (s: net.Socket) => void): Promise<void> {
  fs.mkdirSync(path.dirname(e.socket), { recursive: true, mode: 0o700 });
  const server = net.createServer(onConnection);
  servers.push(server);
  await new Promise<void>((r) => server.listen(e.socket, r));
}

/** The only error message shown, once there is one. */
async function theError(): Promise<string> {
  const m = await messageShown('error', /./);
  expect(editor.messages).toHaveLength(1);
  expect(m.text).not.toMatch(/\n\s+at /);
  return m.text;
}

describe('without a daemon it can use', () => {
  it('no daemon and autostart off: says none is running, where; the view and status say so', async () => {
    const e = freshEnv();
    ext = startExtension(e.env, { 'clippy.autostart': false });
    await run('clippy.refresh');
    expect(await theError()).toBe(`clippy: no clippy daemon is running (socket ${e.socket})`);
    expect(await viewRows()).toEqual([
      `not connected: no clippy daemon is running (socket ${e.socket})`,
      'click here (or Refresh) to connect',
    ]);
    expect(statusText()).toBe('$(hubot) clippy: offline');
    // Nothing was started.
    expect(fs.existsSync(e.socket)).toBe(false);
  });

  it('no daemon and no clippy to start one: says both', async () => {
    const e = freshEnv();
    ext = startExtension(e.env, { 'clippy.command': 'no-such-clippy' });
    editor.openEditor('text', 'text');
    await run('clippy.sendSelection', 'alpha');
    expect(await theError()).toBe(
      `clippy: no clippy daemon is running (socket ${e.socket}) and it cannot be started: ` +
        '`no-such-clippy` was not found: install clippy (npm) or set the clippy.command setting ' +
        '(e.g. ["node", "/path/to/clippy/packages/cli/bin/clippy.js"])',
    );
  });

  it('no daemon: showing the view starts one as the CLI does (`clippy daemon start`)', async () => {
    const e = freshEnv();
    editor.viewVisible = true;
    // What VS Code's extension host has in its environment; not for a daemon that outlives it.
    process.env.ELECTRON_RUN_AS_NODE = '1';
    process.env.VSCODE_PID = String(process.pid);
    ext = startExtension(e.env);
    await eventually(welcomeShown, 'the welcome of the started daemon, which has no session');
    const pid = await e.discoverPid();
    expect(pid).toBeGreaterThan(0);
    if (process.platform === 'linux') {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`XDG_RUNTIME_DIR=${e.runtimeDir}`);
      expect(environ.filter((v) => /^(ELECTRON_RUN_AS_NODE|VSCODE_)/.test(v))).toEqual([]);
    }
    expect(statusText()).toBe('$(hubot) 0 busy · 0 blocked · 0 idle');
    expect(editor.messages).toEqual([]);
  });

  it('a daemon of another protocol version: says so and what to do', async () => {
    const e = freshEnv();
    // The real daemon as the previous protocol version's release would run it.
    const old = await TestDaemon.start({
      env: e,
      bin: otherRelease(e.root, { protocolVersion: PROTOCOL_VERSION - 1 }),
    });
    ext = startExtension(e.env);
    await run('clippy.relay', 'a', 'b');
    const expected =
      `the running clippy daemon (pid ${old.pid}) at ${e.socket} speaks protocol version ` +
      `${PROTOCOL_VERSION - 1}, this extension speaks ${PROTOCOL_VERSION}: it was started by ` +
      'another version of clippy. Run `clippy daemon restart --force` to replace it (its sessions ' +
      'end then), or use an extension of its version.';
    expect(await theError()).toBe(`clippy: ${expected}`);
    expect((await viewRows())[0]).toBe(`not connected: ${expected}`);
  });

  it('a socket that never answers: a timeout message, not a hang', async () => {
    const e = freshEnv();
    let said = '';
    let closed = false;
    await listen(e, (s) => {
      held.push(s);
      s.on('data', (d) => (said += d.toString('latin1')));
      s.on('close', () => (closed = true));
    });
    ext = startExtension(e.env);
    const ran = run('clippy.capture', 'alpha');
    // It asked (a hello on an open connection) and waits for the answer, saying nothing yet...
    await eventually(() => said.includes('hello'), 'the hello');
    expect(editor.messages).toEqual([]);
    expect(closed).toBe(false);
    // ...until its hello bound, which the message names; then it lets go of the connection.
    await ran;
    expect(await theError()).toBe(
      `clippy: the clippy daemon at ${e.socket} did not answer hello within 5000 ms`,
    );
    await eventually(() => closed, 'the connection closed by the extension');
  });
});

describe('a daemon that goes and comes', () => {
  it('the view says the daemon went; one started later is followed by itself', async () => {
    const e = freshEnv();
    const first = await TestDaemon.start({ env: e });
    editor.viewVisible = true;
    ext = startExtension(e.env, { 'clippy.autostart': false });
    await eventually(welcomeShown, 'connected');
    const c1 = await first.connect();
    await c1.request('shutdown', {}).catch(() => {});
    await c1.close();
    await first.exited;
    const rows = await eventually(async () => {
      const r = await viewRows();
      return r[0]?.startsWith('not connected') ? r : undefined;
    }, 'the view saying the daemon went');
    expect(rows[0]).toMatch(/^not connected: the clippy daemon shut down \(.+\)$/);
    expect(statusText()).toBe('$(hubot) clippy: offline');
    // Nothing to act on: the commands that need a session are disabled.
    expect(editor.context.get('clippy.connected')).toBe(false);
    expect(editor.context.get('clippy.hasLiveSessions')).toBe(false);
    // Started elsewhere (as `clippy new` in a shell would): the view follows it, unasked.
    const second = await TestDaemon.start({ env: e });
    const c2 = await second.connect();
    await c2.request('spawn', { command: 'sh', args: [], name: 'again', cwd: e.root });
    await c2.close();
    await eventually(
      async () => (await viewRows())[0]?.startsWith('again  '),
      'the new daemon followed',
    );
    expect(editor.messages).toEqual([]);
  });

  it('a new clippy.socket setting: the view follows the daemon it names', async () => {
    const one = await TestDaemon.start({ env: freshEnv() });
    const two = await TestDaemon.start({ env: freshEnv() });
    try {
      for (const [d, name] of [
        [one, 'on-one'],
        [two, 'on-two'],
      ] as const) {
        const c = await d.connect();
        await c.request('spawn', { command: 'sh', args: [], name, cwd: d.env.root });
        await c.close();
      }
      editor.viewVisible = true;
      ext = startExtension(one.env.env, { 'clippy.socket': one.socket });
      await eventually(async () => (await viewRows())[0]?.startsWith('on-one  '), 'daemon one');
      editor.settings['clippy.socket'] = two.socket;
      editor.configurationChanged.fire({ affectsConfiguration: (s) => s === 'clippy.socket' });
      await eventually(async () => (await viewRows())[0]?.startsWith('on-two  '), 'daemon two');
      expect(editor.messages).toEqual([]);
    } finally {
      await one.stop();
      await two.stop();
    }
  });

  it('deactivation closes every connection it opened', async () => {
    const d = await TestDaemon.start({ env: freshEnv() });
    const c = await d.connect();
    try {
      await c.request('spawn', { command: 'sh', args: [], name: 'sh', cwd: d.env.root });
      const baseline = (await c.request('daemon_status', {})).clients;
      editor.viewVisible = true;
      ext = startExtension(d.env.env);
      await eventually(async () => (await viewRows())[0]?.startsWith('sh  '), 'connected');
      await run('clippy.attach', 'sh');
      await eventually(
        async () => (await c.request('daemon_status', {})).clients === baseline + 2,
        'the extension and its terminal connected',
      );
      ext.stop();
      ext = undefined;
      await eventually(
        async () => (await c.request('daemon_status', {})).clients === baseline,
        'every connection closed',
      );
      const sh = (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'sh');
      expect(sh?.clients).toBe(0);
      expect(sh?.state).not.toBe('exited');
    } finally {
      await c.close();
      await d.stop();
    }
  });
});
