import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv, sleep } from './test-support/fixtures.js';
import { RawClient } from './test-support/raw-client.js';
import { buildMissing } from '@clippy/testkit/requirements';
import { eventually } from '@clippy/testkit/until';

// The built entry point: these tests run clippyd as a real process (needs `npm run build`).
const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'clippyd.js');
const BUILT = buildMissing(resolve(dirname(BIN), '..', 'dist', 'main.js')) === null;

interface Daemon {
  proc: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const clients: RawClient[] = [];
const extraPids: number[] = [];

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const p of procs.splice(0))
    if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const pid of extraPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'clippy-'));
  dirs.push(d);
  return d;
}

function baseEnv(dir: string, runtime = true): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_STATE_HOME: join(dir, 'state'),
  };
  if (runtime) env.XDG_RUNTIME_DIR = join(dir, 'run');
  return env;
}

function startDaemon(env: Record<string, string>, args: string[] = []): Daemon {
  const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(proc);
  const d: Daemon = {
    proc,
    stdout: '',
    stderr: '',
    exited: new Promise((r) => proc.once('exit', (code) => r(code))),
  };
  proc.stdout!.on('data', (b: Buffer) => (d.stdout += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (d.stderr += b.toString()));
  return d;
}

async function startListening(env: Record<string, string>, args: string[] = []): Promise<Daemon> {
  const d = startDaemon(env, args);
  const sock = join(env.XDG_RUNTIME_DIR!, 'clippy', 'broker.sock');
  const wsSock = join(env.XDG_RUNTIME_DIR!, 'clippy', 'ws.sock');
  // Connectable, not merely present: a stale file from a killed daemon is present too. Both
  // sockets: the WebSocket one is bound just after the main one. A daemon that exited is
  // returned as it is (the caller's test looks at how it ended).
  await eventually(
    async () => {
      if (d.proc.exitCode !== null) return true;
      try {
        (await RawClient.connect(sock)).close();
        return await accepts(wsSock);
      } catch {
        return false; // not yet
      }
    },
    'the daemon listening on both sockets',
    15_000,
    50,
  ).catch(() => {});
  return d;
}

/** Whether a Unix socket accepts a connection (without speaking to it). */
function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!BUILT)('clippyd lifecycle (real process)', () => {
  it('refuses to start without XDG_RUNTIME_DIR, saying why', async () => {
    const dir = tempDir();
    const d = startDaemon(baseEnv(dir, false));
    expect(await d.exited).not.toBe(0);
    expect(d.stderr).toContain('XDG_RUNTIME_DIR');
    expect(d.stderr).toContain('--socket');
  });

  it('creates a 0700 directory and 0600 sockets; a second daemon says "broker already running"', async () => {
    const dir = tempDir();
    const env = baseEnv(dir);
    const first = await startListening(env);
    const sockDir = join(env.XDG_RUNTIME_DIR!, 'clippy');
    expect(statSync(sockDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(sockDir, 'broker.sock')).mode & 0o777).toBe(0o600);
    expect(statSync(join(sockDir, 'ws.sock')).mode & 0o777).toBe(0o600);
    const second = startDaemon(env);
    expect(await second.exited).toBe(3);
    expect(second.stderr).toContain('broker already running');
    // The first is unharmed.
    const c = await RawClient.open(join(sockDir, 'broker.sock'));
    clients.push(c);
    expect((await c.ok('daemon_status')).pid).toBe(first.proc.pid);
    // Background mode prints nothing on stdout and logs to the state dir.
    expect(first.stdout).toBe('');
    first.proc.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(readFileSync(join(env.XDG_STATE_HOME!, 'clippy', 'clippyd.log'), 'utf8')).toContain(
      'clippyd listening',
    );
  });

  it('replaces a stale socket left by a killed daemon', async () => {
    const dir = tempDir();
    const env = baseEnv(dir);
    const sock = join(env.XDG_RUNTIME_DIR!, 'clippy', 'broker.sock');
    const killed = await startListening(env);
    killed.proc.kill('SIGKILL');
    await killed.exited;
    expect(existsSync(sock)).toBe(true);
    const fresh = await startListening(env);
    const c = await RawClient.open(sock);
    clients.push(c);
    expect((await c.ok('daemon_status')).pid).toBe(fresh.proc.pid);
    fresh.proc.kill('SIGTERM');
    expect(await fresh.exited).toBe(0);
  });

  it('on SIGTERM tells clients, ends session process groups, removes the sockets and exits 0', async () => {
    const dir = tempDir();
    const env = baseEnv(dir);
    const sock = join(env.XDG_RUNTIME_DIR!, 'clippy', 'broker.sock');
    const d = await startListening(env, ['--foreground']);
    const c = await RawClient.open(sock);
    clients.push(c);
    // A session whose shell has a background child in its process group, and one that ignores SIGHUP.
    const a = await c.ok('spawn', {
      command: 'sh',
      args: ['-c', 'sleep 60 & echo "bg=$!"; wait'],
      env: childEnv(),
      cwd: dir,
    });
    const b = await c.ok('spawn', {
      command: 'sh',
      args: ['-c', 'trap "" HUP; sleep 0.2; echo go; sleep 60'],
      env: childEnv(),
      cwd: dir,
    });
    const att = await c.ok('attach', { session: a.session });
    await c.ok('attach', { session: b.session });
    await c.until(() =>
      /bg=\d+/.test(
        Buffer.from(att.replay as Uint8Array).toString() + c.output(a.session as string).toString(),
      ),
    );
    const bg = Number(
      /bg=(\d+)/.exec(
        Buffer.from(att.replay as Uint8Array).toString() + c.output(a.session as string).toString(),
      )![1],
    );
    const pids = [a.pid as number, b.pid as number, bg];
    extraPids.push(...pids);
    for (const pid of pids) expect(alive(pid)).toBe(true);
    d.proc.kill('SIGTERM');
    await c.waitFor((m) => m.type === 'daemon_shutdown');
    expect(await d.exited).toBe(0);
    expect(existsSync(sock)).toBe(false);
    expect(existsSync(join(env.XDG_RUNTIME_DIR!, 'clippy', 'ws.sock'))).toBe(false);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(
      c.messages.some(
        (m) => m.type === 'exit' && m.session === b.session && m.signal === 'SIGKILL',
      ),
    ).toBe(true);
  });

  it('the shutdown request stops the daemon the same way; SIGHUP is ignored in the background', async () => {
    const dir = tempDir();
    const env = baseEnv(dir);
    const sock = join(env.XDG_RUNTIME_DIR!, 'clippy', 'broker.sock');
    const d = await startListening(env);
    d.proc.kill('SIGHUP');
    // Fixed: that the daemon does not die of the signal cannot be awaited; a daemon that
    // died of it would be gone within this, and the open below would fail.
    await sleep(200);
    const c = await RawClient.open(sock);
    clients.push(c);
    const s = await c.ok('spawn', { command: 'sleep', args: ['60'], env: childEnv(), cwd: dir });
    extraPids.push(s.pid as number);
    await c.ok('shutdown');
    await c.waitFor((m) => m.type === 'daemon_shutdown');
    expect(await d.exited).toBe(0);
    expect(existsSync(sock)).toBe(false);
    expect(alive(s.pid as number)).toBe(false);
  });
});
