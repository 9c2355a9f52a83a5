import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '@clippy/protocol';
import { processRunning } from '@clippy/system/process';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { spawnDetached } from '@clippy/testkit/detached-session';
import { bins } from '@clippy/testkit/paths';
import { eventually } from '@clippy/testkit/until';

/** Per test: several real processes start and stop; a loaded 2-core CI box needs the room. */
const E2E_TIMEOUT_MS = 60_000;

// End-to-end: the real clippyd and the real `clippy` binary (needs `npm run build`).

// One daemon for the file, emptied after each test: the tests of `clippy daemon` start their
// own in environments of their own.
let shared: TestDaemon;
emptyDaemonPerTest((d) => (shared = d));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

/** The file's daemon, empty (no session, no other client), and the CLI's environment for it. */
function startDaemon(): { daemon: TestDaemon; env: NodeJS.ProcessEnv } {
  return { daemon: shared, env: { ...shared.env.env, PS1: 'PROMPT$ ' } };
}

/** The environment of a session `clippy new` makes (TERM as it sets it), for spawnDetached. */
const asNew = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...env, TERM: 'xterm-256color' });

/** A process's command line, word by word. */
const commandLine = (pid: number): string[] =>
  fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** Polls through a client or the daemon's files: testkit's eventually, with room for load. */
const waitUntil = <T>(check: () => Promise<T | undefined>, what: string) =>
  eventually(check, what, 10_000, 50);

describe('clippy ls / kill / rm / send', { timeout: E2E_TIMEOUT_MS }, () => {
  it('ls --json lists a new session with its protocol fields; the table shows it too', async () => {
    const { env } = startDaemon();
    const made = await runClippy(
      ['new', '-d', '--json', '--name', 'lsme', '--', 'sleep', '30'],
      env,
    );
    expect(made.code).toBe(0);
    const created = JSON.parse(made.stdout);
    expect(created).toMatchObject({
      name: 'lsme',
      session: expect.any(String),
      pid: expect.any(Number),
    });

    const r = await runClippy(['ls', '--json'], env);
    expect(r.code).toBe(0);
    const [s] = JSON.parse(r.stdout).sessions;
    expect(s).toMatchObject({
      session: created.session,
      name: 'lsme',
      kind: 'pty',
      pid: created.pid,
      command: 'sleep',
      args: ['30'],
      cwd: process.cwd(),
      clients: 0,
      turn_count: 0,
    });
    expect(['starting', 'idle', 'busy', 'blocked']).toContain(s.state);

    const table = await runClippy(['ls'], env);
    const [header, row] = table.stdout.trimEnd().split('\n');
    expect(header!.split(/\s+/)).toEqual([
      'NAME',
      'ID',
      'STATE',
      'TURNS',
      'PID',
      'AGE',
      'COMMAND',
      'CLIENTS',
      'ROUTES',
    ]);
    expect(row).toMatch(
      new RegExp(
        `^lsme\\s+${created.session}\\s+\\w+\\s+0\\s+${created.pid}\\s+\\d+s\\s+sleep 30\\s+0\\s+-$`,
      ),
    );
  });

  it('kill removes the session once it exited; --keep leaves it as exited(…) for ls -a; rm removes it', async () => {
    const { daemon, env } = startDaemon();
    await spawnDetached(daemon, 'gone', 'sleep', ['30'], asNew(env));
    await spawnDetached(daemon, 'kept', 'sleep', ['30'], asNew(env));
    expect((await runClippy(['kill', 'gone'], env)).code).toBe(0);
    expect((await runClippy(['kill', 'kept', '--keep', '--signal', 'TERM'], env)).code).toBe(0);
    // Polled through a client (a CLI process per look costs a second of CPU under load); what
    // the user reads is `ls -a` below.
    const c = await daemon.connect();
    cleanups.push(async () => void (await c.close()));
    await waitUntil(async () => {
      const list = (await c.request('list_sessions', {})).sessions;
      return list.every((s) => s.state === 'exited') && !list.some((s) => s.name === 'gone')
        ? true
        : undefined;
    }, 'gone removed and kept exited');
    // Three reads of one state (each a node start-up): run at once.
    const [json, table, live] = await Promise.all([
      runClippy(['ls', '-a', '--json'], env),
      runClippy(['ls', '-a'], env),
      runClippy(['ls'], env),
    ]);
    const listed = JSON.parse(json.stdout) as {
      sessions: { name: string; state: string }[];
    };
    expect(listed.sessions.map((s) => [s.name, s.state])).toEqual([['kept', 'exited']]);
    expect(table.stdout).toMatch(/kept\s+\S+\s+exited\((SIGTERM|143|null|\?)\)/);
    expect(live.stderr).toMatch(/no live sessions/);
    expect((await runClippy(['rm', 'kept'], env)).code).toBe(0);
    expect(JSON.parse((await runClippy(['ls', '-a', '--json'], env)).stdout).sessions).toEqual([]);
  });

  it('errors name the problem: unknown session, bad signal', async () => {
    const { env } = startDaemon();
    // Two refusals that change nothing: run at once (each is a node start-up).
    const [r, bad] = await Promise.all([
      runClippy(['kill', 'nosuch'], env),
      runClippy(['kill', 'x', '--signal', 'NOPE'], env),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nosuch.*session_not_found|session_not_found/);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/unknown signal 'NOPE'/);
  });

  it('send --enter types a line into the session; an observer’s keys are not sent', async () => {
    const { daemon, env } = startDaemon();
    await spawnDetached(daemon, 'recv', 'bash', ['--norc', '--noprofile'], asNew(env));
    const a = CliPty.clippy(['attach', 'recv', '--observer'], { env });
    cleanups.push(() => a.dispose());
    await a.waitFor('PROMPT$');
    // The observer's own keystrokes go nowhere: typed before the send, never run.
    a.write('echo OBS-$((1+1))\r');
    const r = await runClippy(['send', 'recv', 'echo sent-$((2+3))', '--enter', '--force'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await a.waitFor('sent-5');
    expect(a.screen().filter((l) => l === 'sent-5')).toHaveLength(1);
    expect(a.text).not.toContain('OBS-2');
    a.write('\x1d');
    expect(await a.waitExit()).toBe(0);
  });
});

describe('clippy daemon', { timeout: E2E_TIMEOUT_MS }, () => {
  it('starts the daemon on the first command, reports status, and stops it', async () => {
    const denv = new DaemonEnv();
    cleanups.push(() => denv.dispose());
    const env = denv.env;
    const before = await runClippy(['daemon', 'status'], env);
    expect(before.code).toBe(3);
    expect(before.stdout).toMatch(/not running/);

    const first = await runClippy(['ls', '--json'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ sessions: [] });

    // Three looks at the running daemon (each a node start-up): run at once.
    const [status, human, again] = await Promise.all([
      runClippy(['daemon', 'status', '--json'], env),
      runClippy(['daemon', 'status'], env),
      runClippy(['daemon', 'start'], env),
    ]);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    denv.track(s.pid);
    expect(s).toMatchObject({ running: true, socket: denv.socket, sessions: 0 });
    expect(s.pid).not.toBe(process.pid);
    // Started with the node flags every start of clippyd passes (its heap's room).
    expect(commandLine(s.pid)).toEqual(expect.arrayContaining([...DAEMON_NODE_FLAGS]));
    expect(human.stdout).toContain(`pid        ${s.pid}`);
    expect(again.stdout).toContain(`already running (pid ${s.pid})`);

    const stop = await runClippy(['daemon', 'stop'], env);
    expect(stop.code).toBe(0);
    expect(fs.existsSync(denv.socket)).toBe(false);
    // Ended: gone, or a zombie its new parent (the machine's init) has yet to reap.
    expect(processRunning(s.pid)).toBe(false);
    expect((await runClippy(['daemon', 'status'], env)).code).toBe(3);
  });

  it('daemon start --foreground runs clippyd in the foreground and passes its exit code through', async () => {
    const denv = new DaemonEnv();
    cleanups.push(() => denv.dispose());
    const p = CliPty.clippy(['daemon', 'start', '--foreground', '--log-level', 'warn'], {
      env: denv.env,
    });
    cleanups.push(() => p.dispose());
    const pid = await waitUntil(
      () => denv.discoverPid().then((x) => x ?? undefined),
      'foreground daemon',
    );
    expect(pid).not.toBe(p.pid); // clippyd is a child of the CLI
    expect(commandLine(pid)).toEqual(expect.arrayContaining([...DAEMON_NODE_FLAGS]));
    process.kill(p.pid, 'SIGTERM'); // forwarded to clippyd, which stops cleanly
    expect(await p.waitExit()).toBe(0);
    expect(fs.existsSync(denv.socket)).toBe(false);
  });

  it('daemon stop takes a daemon that ended but is not reaped yet (a zombie) for stopped', async () => {
    // The daemon is this process's child, and execFileSync holds this process's event loop:
    // nothing reaps the daemon while the CLI waits for it to go, as under an init that never
    // reaps (some containers').
    const daemon = await TestDaemon.start();
    cleanups.push(() => daemon.stop());
    const stdout = execFileSync(process.execPath, [bins.clippy, 'daemon', 'stop'], {
      env: daemon.env.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(stdout).toBe(`clippy daemon stopped (pid ${daemon.pid})\n`);
    expect(fs.existsSync(daemon.socket)).toBe(false);
    expect(await daemon.exited).toEqual({ code: 0, signal: null });
  });

  it('without XDG_RUNTIME_DIR and --socket, says so and exits 69', async () => {
    const env = { ...process.env };
    delete env.XDG_RUNTIME_DIR;
    delete env.CLIPPY_SOCKET;
    const r = await runClippy(['ls'], env);
    expect(r.code).toBe(69);
    expect(r.stderr).toMatch(/XDG_RUNTIME_DIR is not set/);
  });
});

describe('client over the WebSocket transport', { timeout: E2E_TIMEOUT_MS }, () => {
  it('spawns, attaches and reads output over ws+unix', async () => {
    const { daemon } = startDaemon();
    const client = await daemon.connect({ transport: 'ws' });
    cleanups.push(async () => void (await client.close()));
    const { session } = await client.request('spawn', {
      command: 'sh',
      // Stays until the daemon ends it: the listing below must find it still attached.
      args: ['-c', 'read x; echo "got:$x"; exec sleep 300'],
      cwd: process.cwd(),
    });
    const chunks: Buffer[] = [];
    client.on('output', (p) => chunks.push(Buffer.from(p.data)));
    const attached = await client.request('attach', {
      session,
      mode: 'interactive',
      cols: 80,
      rows: 24,
    });
    expect(attached.session).toBe(session);
    await client.request('input', { session, data: Buffer.from('over-ws\r') });
    await waitUntil(
      async () => (Buffer.concat(chunks).toString().includes('got:over-ws') ? true : undefined),
      'echo over ws',
    );
    const { sessions } = await client.request('list_sessions', {});
    expect(sessions.find((s) => s.session === session)?.clients).toBe(1);
  });
});
