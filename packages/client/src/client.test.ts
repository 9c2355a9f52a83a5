import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokerError, NoRuntimeDirError } from '@clippy/protocol';
import { FakeServer, ok, type Handler } from '../test/fake-server.js';
import {
  ConnectionClosedError,
  DaemonNotRunningError,
  DaemonStartError,
  HANDSHAKE_TIMEOUT_MS,
  RequestTimeoutError,
  connect,
  connectDetailed,
  type ClippyClient,
} from './index.js';

const fakeDaemon = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'test',
  'fixtures',
  'fake-daemon.mjs',
);

const servers: FakeServer[] = [];
const clients: ClippyClient[] = [];
const dirs: string[] = [];
const pids: number[] = [];

async function serve(handler: Handler, kind: 'unix' | 'ws' = 'unix'): Promise<FakeServer> {
  const s = await new FakeServer(handler, kind).start();
  servers.push(s);
  return s;
}

async function open(server: FakeServer, transport: 'unix' | 'ws' = 'unix'): Promise<ClippyClient> {
  const c = await connect({ socket: server.socketPath, env: {}, transport });
  clients.push(c);
  return c;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pid a test daemon wrote, once it has. Not testkit's `eventually`: testkit depends on
 * client, so client cannot take testkit as a devDependency (a cycle turbo's build refuses).
 */
async function readPid(file: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const text = fs.readFileSync(file, 'utf8');
      if (text) return Number(text);
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) throw new Error(`no pid in ${file}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.stop();
  for (const pid of pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('ClippyClient over the Unix socket', () => {
  it('handshakes with hello and matches responses to requests by id, even out of order', async () => {
    const held: Array<() => void> = [];
    const server = await serve((m, conn) => {
      if (m.type === 'kill') {
        held.push(() => conn.send(ok(m)));
        return;
      }
      if (m.type === 'list_sessions') return ok(m, { sessions: [] });
      return undefined;
    });
    const client = await open(server);
    const first = client.request('kill', { session: 'a' });
    const second = client.request('list_sessions', {});
    await expect(second).resolves.toEqual({ sessions: [] });
    held[0]!();
    await expect(first).resolves.toEqual({});
    const conn = server.conns[0]!;
    expect(conn.received.map((m) => [m.type, m.id])).toEqual([
      ['hello', 0],
      ['kill', 1],
      ['list_sessions', 2],
    ]);
    expect(conn.received[0]).toMatchObject({ version: 2, role: 'client' });
    expect(client.brokerPid).toBe(process.pid);
  });

  it('rejects an error response with BrokerError carrying the code and message', async () => {
    const server = await serve((m) => ({
      type: 'response',
      id: m.id,
      status: 'error',
      error: 'session_not_found',
      message: "no session named 'x'",
    }));
    const client = await open(server);
    const err = await client.request('remove', { session: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect((err as BrokerError).code).toBe('session_not_found');
    expect((err as BrokerError).message).toContain("no session named 'x'");
  });

  it('times out a request that gets no answer, and the connection stays usable', async () => {
    let arrived!: () => void;
    const received = new Promise<void>((r) => (arrived = r));
    const server = await serve((m) => {
      if (m.type !== 'daemon_status') return ok(m);
      arrived();
      return undefined;
    });
    const client = await open(server);
    // The request's own timer, on a fake clock: it fires at its time, not before.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let settled = false;
    const answer = client
      .request('daemon_status', {}, { timeoutMs: 100 })
      .catch((e: unknown) => e)
      .finally(() => (settled = true));
    try {
      await received;
      await vi.advanceTimersByTimeAsync(99);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
    } finally {
      vi.useRealTimers();
    }
    const err = await answer;
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as Error).message).toMatch(/daemon_status.*100 ms/);
    await expect(client.request('resize', { session: 's', cols: 80, rows: 24 })).resolves.toEqual(
      {},
    );
  });

  it('rejects a result that does not match the schema for its request', async () => {
    const server = await serve((m) => ok(m, { session: 's' })); // spawn result without name/pid
    const client = await open(server);
    await expect(client.request('spawn', { command: 'sh' })).rejects.toThrow(/malformed.*name/);
  });

  it('delivers pushes to on() handlers and to the pushes() iterator', async () => {
    const server = await serve((m) => ok(m));
    const client = await open(server);
    const seen: string[] = [];
    const off = client.on('output', (p) => seen.push(Buffer.from(p.data).toString()));
    const iter = client.pushes(['exit']);
    const conn = server.conns[0]!;
    conn.send({ type: 'output', id: 0, session: 's', data: Buffer.from('hello') });
    conn.send({ type: 'exit', id: 0, session: 's', exit_code: 3, signal: null });
    const next = await iter.next();
    expect(next.value).toMatchObject({ type: 'exit', exit_code: 3 });
    expect(seen).toEqual(['hello']);
    off();
    conn.send({ type: 'output', id: 0, session: 's', data: Buffer.from('more') });
    await client.request('resize', { session: 's', cols: 1, rows: 1 });
    expect(seen).toEqual(['hello']);
    await iter.return(undefined);
  });

  it('sends notifications with id 0 and gets no answer', async () => {
    const server = await serve((m) => (m.id === 0 ? undefined : ok(m)));
    const client = await open(server);
    expect(client.notify('ack', { session: 's', bytes: 5000 })).toBe(true);
    await client.request('detach', { session: 's' });
    expect(server.conns[0]!.received[1]).toEqual({ type: 'ack', id: 0, session: 's', bytes: 5000 });
    expect(server.conns[0]!.received[2]).toMatchObject({ type: 'detach', id: 1 });
  });

  it('close() rejects pending requests and reports reason client', async () => {
    const server = await serve(() => undefined);
    const client = await open(server);
    const pending = client.request('list_sessions', {});
    const info = await client.close();
    expect(info.reason).toBe('client');
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(client.request('list_sessions', {})).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('reports a lost connection when the daemon dies, rejecting what was pending', async () => {
    const server = await serve(() => undefined);
    const client = await open(server);
    const pending = client.request('list_sessions', {});
    const iter = client.pushes();
    server.conns[0]!.destroy();
    const info = await client.closed;
    expect(info.reason).toBe('lost');
    expect(info.message).toMatch(/lost/);
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
    expect((await iter.next()).done).toBe(true);
  });

  it('reports shutdown when the broker announced it before closing', async () => {
    const server = await serve(() => undefined);
    const client = await open(server);
    server.conns[0]!.send({ type: 'daemon_shutdown', id: 0, reason: 'shutdown request' });
    // The scenario: the connection ends a moment after the announcement (not a wait).
    setTimeout(() => server.conns[0]!.destroy(), 20);
    const info = await client.closed;
    expect(info.reason).toBe('shutdown');
    expect(info.message).toContain('shutdown request');
  });

  it('fails the handshake with BrokerError when the broker refuses the version', async () => {
    const net = await import('node:net');
    const { encodeFrame } = await import('@clippy/protocol');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const sock = path.join(dir, 'b.sock');
    const srv = net.createServer((s) => {
      s.once('data', () =>
        s.end(
          encodeFrame({
            type: 'hello_ack',
            id: 0,
            status: 'error',
            error: 'version_mismatch',
            message: 'speaks 9',
          }),
        ),
      );
    });
    await new Promise<void>((r) => srv.listen(sock, r));
    try {
      const err = await connect({ socket: sock, env: {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BrokerError);
      expect((err as BrokerError).code).toBe('version_mismatch');
    } finally {
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe('ClippyClient over WebSocket', () => {
  it('speaks the same messages over ws+unix', async () => {
    const server = await serve((m) => ok(m, { sessions: [] }), 'ws');
    // `socket` names the main socket; the ws transport uses the one beside it.
    const client = await open(server, 'ws');
    await expect(client.request('list_sessions', {})).resolves.toEqual({ sessions: [] });
    server.conns[0]!.send({ type: 'output', id: 0, session: 's', data: Buffer.from('x') });
    const p = await client.pushes(['output']).next();
    expect(Buffer.from((p.value as { data: Uint8Array }).data).toString()).toBe('x');
  });
});

describe('connect: finding or starting the daemon', () => {
  it('throws NoRuntimeDirError without XDG_RUNTIME_DIR or a socket', async () => {
    await expect(connect({ env: {} })).rejects.toBeInstanceOf(NoRuntimeDirError);
  });

  it('throws DaemonNotRunningError when nothing listens and autoStart is off', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const err = await connect({ env: { XDG_RUNTIME_DIR: dir } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonNotRunningError);
    expect((err as Error).message).toContain(path.join(dir, 'clippy', 'broker.sock'));
  });

  it('starts the daemon detached and waits until it answers hello', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const pidfile = path.join(dir, 'pid');
    const socket = path.join(dir, 'd.sock');
    const { client, startedPid } = await connectDetailed({
      socket,
      env: { ...process.env, FAKE_DAEMON_PIDFILE: pidfile, FAKE_DAEMON_DELAY_MS: '300' },
      autoStart: { daemonPath: fakeDaemon },
    });
    clients.push(client);
    const pid = await readPid(pidfile);
    pids.push(pid);
    expect(startedPid).toBe(pid);
    expect(client.brokerPid).toBe(pid);
    await expect(client.request('detach', { session: 'x' })).resolves.toEqual({});
    // A second connect finds the running daemon instead of starting another.
    const again = await connectDetailed({ socket, env: {}, autoStart: { daemonPath: fakeDaemon } });
    clients.push(again.client);
    expect(again.startedPid).toBeUndefined();
    expect(again.client.brokerPid).toBe(pid);
  });

  it('waits for a daemon it started that answers hello late (another daemon’s history lock)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const pidfile = path.join(dir, 'pid');
    const { client } = await connectDetailed({
      socket: path.join(dir, 'd.sock'),
      env: {
        ...process.env,
        FAKE_DAEMON_PIDFILE: pidfile,
        FAKE_DAEMON_HELLO_DELAY_MS: String(HANDSHAKE_TIMEOUT_MS + 1_000),
      },
      autoStart: { daemonPath: fakeDaemon },
    });
    clients.push(client);
    pids.push(await readPid(pidfile));
    expect(client.brokerPid).toBe(pids.at(-1));
  });

  it('fails fast with DaemonStartError when the daemon exits at start-up', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const err = await connect({
      socket: path.join(dir, 'd.sock'),
      env: { ...process.env, FAKE_DAEMON_FAIL: '1' },
      // A deadline no test waits for: the error must come from the daemon's exit, not from it.
      autoStart: { daemonPath: fakeDaemon, timeoutMs: 3_600_000 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonStartError);
    expect((err as Error).message).toMatch(/exited at start-up with code 1/);
    expect((err as Error).message).not.toMatch(/did not answer within/);
  });

  it('repeats why the daemon could not start, in its own words', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const err = await connect({
      socket: path.join(dir, 'd.sock'),
      env: {
        ...process.env,
        FAKE_DAEMON_FAIL: '1',
        FAKE_DAEMON_SAYS: 'the state folder is not yours',
      },
      autoStart: { daemonPath: fakeDaemon },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonStartError);
    expect((err as Error).message).toMatch(
      /exited at start-up with code 1: the state folder is not yours$/u,
    );
  });

  it('gives up after the start timeout when the daemon never listens', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
    dirs.push(dir);
    const pidfile = path.join(dir, 'pid');
    const err = await connect({
      socket: path.join(dir, 'd.sock'),
      env: { ...process.env, FAKE_DAEMON_PIDFILE: pidfile, FAKE_DAEMON_DELAY_MS: '60000' },
      autoStart: { daemonPath: fakeDaemon, timeoutMs: 300 },
    }).catch((e: unknown) => e);
    // The fake may still be starting (slow machine): wait for its pid so it can be stopped.
    pids.push(await readPid(pidfile));
    expect(err).toBeInstanceOf(DaemonStartError);
    expect((err as Error).message).toMatch(/did not answer within 300 ms/);
  });
});
