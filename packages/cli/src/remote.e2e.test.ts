import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askTurn } from '@clippy/testkit/agents/harness';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { TestSshd, sshdUnavailable } from '@clippy/testkit/sshd';
import { eventually } from '@clippy/testkit/until';

// Remote hosts through SSH (issue 22), with a real OpenSSH server on 127.0.0.1: the "remote"
// side is a second XDG_RUNTIME_DIR whose daemon the CLI starts over SSH and reaches through a
// forwarded Unix socket. What is checked runs through the real CLI; a turn a test only needs
// in the remote session is asked for through a client of the remote daemon (`--host build ask`
// itself is checked in the first test).

/** Bounds one remote command (an SSH login, then a command on a loaded machine). */
const REMOTE_TIMEOUT_MS = 30_000;
/** Pause between two looks at the local session's turns (each two requests). */
const REMOTE_POLL_MS = 50;
const E2E_TIMEOUT_MS = 120_000;

const why = sshdUnavailable();

let sshd: TestSshd;
let local: DaemonEnv;
let remote: DaemonEnv;
let env: NodeJS.ProcessEnv;

const clippy = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  runClippy(args, { ...env, ...extra }, REMOTE_TIMEOUT_MS);

/**
 * What `clippy --host build ask SESSION TEXT` does, through a client of the remote daemon: for
 * a test that needs a remote turn, not the remote `ask` (an SSH login and a CLI process cost
 * seconds of CPU on a loaded 2-core machine). Returns the turn's text.
 */
async function askRemote(session: string, text: string): Promise<string> {
  const rc = await remote.connect();
  try {
    const id = await askTurn(rc, session, text, REMOTE_TIMEOUT_MS);
    return (await rc.request('get_turn', { turn_id: id })).turn.text;
  } finally {
    await rc.close();
  }
}

beforeAll(async () => {
  if (why) return; // the tests skip, saying why (unavailable)
  remote = new DaemonEnv();
  sshd = await TestSshd.start({
    XDG_RUNTIME_DIR: remote.runtimeDir,
    XDG_STATE_HOME: remote.env.XDG_STATE_HOME!,
    XDG_CONFIG_HOME: remote.env.XDG_CONFIG_HOME!,
  });
  local = new DaemonEnv({ CLIPPY_SSH_COMMAND: sshd.sshCommand });
  env = local.env;
  const configDir = path.join(env.XDG_CONFIG_HOME!, 'clippy');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, 'config.json'),
    JSON.stringify({ hosts: { build: sshd.alias, here: 'local' } }),
  );
}, E2E_TIMEOUT_MS);

afterAll(async () => {
  if (why) return; // the tests skip, saying why (unavailable)
  for (const dir of [local.runtimeDir, remote.runtimeDir]) await sshd?.stopMasters(dir);
  await local?.dispose();
  await remote?.dispose();
  await sshd?.stop();
}, E2E_TIMEOUT_MS);

describe.skipIf(why !== null)('clippy --host through SSH', { timeout: E2E_TIMEOUT_MS }, () => {
  it('starts the remote daemon on first use and runs new, ls and ask there', async () => {
    const made = await clippy([
      '--host',
      'build',
      'new',
      '-d',
      '--name',
      'rsh',
      '--',
      'bash',
      '--norc',
      '--noprofile',
    ]);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    // The session lives in the remote daemon, not in a local one.
    const rc = await remote.connect();
    try {
      const { sessions } = await rc.request('list_sessions', {});
      expect(sessions.map((s) => s.name)).toEqual(['rsh']);
    } finally {
      await rc.close();
    }
    expect(fs.existsSync(local.socket)).toBe(false);

    const ls = await clippy(['--host', 'build', 'ls']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^rsh\s/mu);

    // CLIPPY_HOST does what --host does; the forwarding from before is reused.
    const ask = await clippy(['ask', 'rsh', 'echo remote-$((40+2))'], { CLIPPY_HOST: 'build' });
    expect(ask.stderr).toBe('');
    expect(ask.stdout).toBe('remote-42\n');
  });

  it('attaches over SSH: the screen is replayed, typing reaches the remote session', async () => {
    const a = CliPty.clippy(['--host', 'build', 'attach', 'rsh'], { env, cols: 100, rows: 30 });
    try {
      await a.waitFor('remote-42');
      a.write('echo typed-$((2*3))\r');
      await a.waitFor('typed-6');
      a.write('\x1d');
      await a.waitFor('[detached from rsh]');
      expect(await a.waitExit()).toBe(0);
    } finally {
      await a.dispose();
    }
  });

  it('relays a turn from one machine into a session on another, and lists both in one table', async () => {
    const loc = await clippy(['new', '-d', '--name', 'loc', '--', 'bash', '--norc', '--noprofile']);
    expect(loc.code).toBe(0);
    // The daemon the CLI started here, stopped with the environment.
    expect(await local.discoverPid()).not.toBeNull();
    expect(await askRemote('rsh', "printf 'echo relayed-%s\\n' $((7*6))")).toBe('echo relayed-42');

    const r = await clippy(['relay', 'build:rsh', 'local:loc']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^relayed build:\w+:\d+ \(\d+ bytes\) into local:loc\n$/u);
    // bash ran the remote turn's text: its next turn is the relayed command's own answer.
    const lc = await local.connect();
    try {
      let text = '';
      await eventually(
        async () => {
          const { turns } = await lc.request('list_turns', { session: 'loc' });
          if (turns.length > 0) text = (await lc.request('get_turn', { session: 'loc' })).turn.text;
          return text === 'relayed-42';
        },
        () => `loc's turn relayed-42 (last: ${JSON.stringify(text)})`,
        REMOTE_TIMEOUT_MS,
        REMOTE_POLL_MS,
      );
    } finally {
      await lc.close();
    }

    // Both read only: side by side (each a CLI process).
    const [all, hostsRun] = await Promise.all([
      clippy(['ls', '--all-hosts']),
      clippy(['hosts', '--json']),
    ]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^HOST\s+NAME/u);
    expect(all.stdout).toMatch(/^local\s+loc\s/mu);
    expect(all.stdout).toMatch(/^build\s+rsh\s/mu);
    const hosts = JSON.parse(hostsRun.stdout) as {
      hosts: { host: string; reachable: boolean; sessions?: number }[];
    };
    expect(hosts.hosts.map((h) => [h.host, h.reachable, h.sessions])).toEqual([
      ['local', true, 1],
      ['build', true, 1],
    ]);
  });

  it('routes every turn of a remote session into a local one, through the local daemon', async () => {
    const add = await clippy(['route', 'add', 'build:rsh', 'loc', '--name', 'across']);
    expect(add.stderr).toBe('');
    expect(add.stdout).toBe('route across: build:rsh → loc (template plain)\n');
    const lc = await local.connect();
    try {
      const before = (await lc.request('list_turns', { session: 'loc' })).turns.length;
      expect(await askRemote('rsh', "printf 'echo routed-%s\\n' $((9*11))")).toBe('echo routed-99');
      // loc (bash) ran the remote turn's text: its next turn is that command's answer.
      let text = '';
      await eventually(
        async () => {
          const { turns } = await lc.request('list_turns', { session: 'loc' });
          if (turns.length > before)
            text = (await lc.request('get_turn', { session: 'loc' })).turn.text;
          return text === 'routed-99';
        },
        () => `loc's turn routed-99 (last: ${JSON.stringify(text)})`,
        REMOTE_TIMEOUT_MS,
        REMOTE_POLL_MS,
      );
    } finally {
      await lc.close();
    }
    const log = JSON.parse((await clippy(['route', 'log', 'across', '--json'])).stdout) as {
      entries: { event: string; turn_ids: string[]; to: string }[];
    };
    expect(log.entries.map((e) => [e.event, e.to])).toEqual([
      ['added', 'loc'],
      ['fired', 'loc'],
    ]);
    // The removal and a refused add (another name), side by side.
    const [rm, bad] = await Promise.all([
      clippy(['route', 'rm', 'across']),
      clippy(['route', 'add', 'build:nosuch', 'loc']),
    ]);
    expect(rm.stdout).toBe('removed across\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/cannot follow 'nosuch' on build: no session 'nosuch' there/u);
  });

  it('says what failed: authentication, no clippy on the remote PATH, an unknown host', async () => {
    // A key the server does not know.
    const cfg = path.join(sshd.dir, 'ssh_config_wrong_key');
    execFileSync('ssh-keygen', [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-f',
      path.join(sshd.dir, 'stranger'),
    ]);
    fs.writeFileSync(
      cfg,
      fs
        .readFileSync(path.join(sshd.dir, 'ssh_config'), 'utf8')
        .replace(/IdentityFile .*/u, `IdentityFile ${path.join(sshd.dir, 'stranger')}`),
    );
    // Three failures that change nothing, each its own SSH login (or none): side by side.
    const [auth, noClippy, unknown] = await Promise.all([
      clippy(['--host', 'build', 'ls'], { CLIPPY_SSH_COMMAND: `ssh -F ${cfg}` }),
      clippy(['--host', 'build', 'daemon', 'status'], {
        CLIPPY_REMOTE_CLIPPY: 'clippy-not-installed',
        // A fresh forwarding directory, so the remote side is asked again.
        XDG_RUNTIME_DIR: remote.runtimeDir,
      }),
      clippy(['--host', 'nosuchhost.invalid', 'ls']),
    ]);
    expect(auth.code).toBe(69);
    expect(auth.stderr).toMatch(/SSH authentication failed: .*Permission denied/u);
    expect(noClippy.code).toBe(69);
    expect(noClippy.stderr).toMatch(/no 'clippy-not-installed' on the remote PATH/u);
    expect(unknown.code).toBe(69);
    expect(unknown.stderr).toMatch(/nosuchhost\.invalid: cannot reach the host/u);
  });
});
