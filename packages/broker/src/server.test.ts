import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NoRuntimeDirError } from '@clippy/protocol';
import { startBroker, type Broker } from './server.js';
import { AlreadyRunningError } from './transports/listen.js';
import { silentLogger } from './log.js';
import { RawClient } from './test-support/raw-client.js';
import { childEnv } from './test-support/fixtures.js';

const dirs: string[] = [];
const brokers: Broker[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const b of brokers.splice(0)) await b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'clippy-'));
  dirs.push(d);
  return d;
}

describe('startBroker', () => {
  it('refuses without XDG_RUNTIME_DIR unless a socket path is given', async () => {
    await expect(startBroker({ env: {}, logger: silentLogger() })).rejects.toBeInstanceOf(
      NoRuntimeDirError,
    );
    const dir = tempDir();
    const socket = join(dir, 'my.sock');
    const b = await startBroker({ env: { XDG_STATE_HOME: dir }, socket, logger: silentLogger() });
    brokers.push(b);
    expect(b.socketPath).toBe(socket);
    expect(b.wsSocketPath).toBe(join(dir, 'my.ws.sock'));
    const c = await RawClient.open(socket);
    clients.push(c);
    expect((await c.ok('daemon_status')).socket).toBe(socket);
  });

  it('takes CLIPPY_SOCKET from the environment', async () => {
    const dir = tempDir();
    const socket = join(dir, 'env.sock');
    const b = await startBroker({
      env: { CLIPPY_SOCKET: socket, XDG_STATE_HOME: dir },
      logger: silentLogger(),
      websocket: false,
    });
    brokers.push(b);
    expect(existsSync(socket)).toBe(true);
    expect(b.wsSocketPath).toBeNull();
  });

  it('a second broker on the same socket fails with AlreadyRunningError', async () => {
    const dir = tempDir();
    const env = { XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir };
    brokers.push(await startBroker({ env, logger: silentLogger() }));
    await expect(startBroker({ env, logger: silentLogger() })).rejects.toBeInstanceOf(
      AlreadyRunningError,
    );
  });

  it('the shutdown request answers ok, pushes daemon_shutdown, ends sessions and removes the socket', async () => {
    const dir = tempDir();
    let stopped = false;
    const b = await startBroker({
      env: { XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir },
      logger: silentLogger(),
      onStopped: () => (stopped = true),
    });
    brokers.push(b);
    const c = await RawClient.open(b.socketPath);
    clients.push(c);
    const s = await c.ok('spawn', { command: 'sleep', args: ['60'], env: childEnv(), cwd: dir });
    await c.ok('attach', { session: s.session });
    const r = await c.request('shutdown');
    expect(r.status).toBe('ok');
    const detached = await c.waitFor((m) => m.type === 'detached');
    expect(detached.reason).toBe('daemon_shutdown');
    await c.waitFor((m) => m.type === 'daemon_shutdown');
    await b.close();
    expect(stopped).toBe(true);
    expect(existsSync(b.socketPath)).toBe(false);
    expect(() => process.kill(s.pid as number, 0)).toThrow();
  });
});

describe('wrapper sessions and turn requests', () => {
  it('registers a wrapper session that ends with its connection; turn requests answer honestly', async () => {
    const dir = tempDir();
    const b = await startBroker({
      env: { XDG_RUNTIME_DIR: dir, XDG_STATE_HOME: dir },
      logger: silentLogger(),
    });
    brokers.push(b);
    const plain = await RawClient.open(b.socketPath);
    clients.push(plain);
    expect(
      (await plain.request('register', { session: 'w', pid: process.pid, pattern: 'generic' }))
        .error,
    ).toBe('not_wrapper');
    const w = await RawClient.open(b.socketPath, 'wrapper');
    clients.push(w);
    const reg = await w.ok('register', { session: 'agent', pid: process.pid, pattern: 'generic' });
    expect(reg.name).toBe('agent');
    expect((await w.request('register', { session: 'agent', pid: 1, pattern: 'x' })).error).toBe(
      'duplicate_session',
    );
    await w.ok('set_state', { session: 'agent', state: 'idle' });
    expect((await plain.request('set_state', { session: 'agent', state: 'busy' })).error).toBe(
      'not_wrapper',
    );
    const list = (await plain.ok('list_sessions')).sessions as Record<string, unknown>[];
    expect(list[0]).toMatchObject({ kind: 'wrapper', name: 'agent', state: 'idle' });
    expect((await plain.request('capture', { session: 'agent' })).error).toBe('no_turn');
    expect((await plain.request('get_turn', { turn_id: 'agent:1' })).error).toBe('turn_not_found');
    expect((await plain.request('get_turn', {})).error).toBe('missing_field');
    expect((await plain.ok('list_turns', { session: 'agent' })).turns).toEqual([]);
    expect((await plain.request('paste', { session: 'agent' })).error).toBe('buffer_empty');
    expect((await plain.request('deliver', { sink: 'fax' })).error).toBe('unknown_sink');
    expect((await plain.request('deliver', { sink: 'file' })).error).toBe('missing_field');
    expect((await plain.request('relay', { from: 'agent', to: 'nope' })).error).toBe(
      'session_not_found',
    );
    expect((await plain.request('wait_turn', { session: 'agent', timeout_ms: 50 })).error).toBe(
      'timeout',
    );
    const put = await plain.ok('put_buffer', { text: 'hello report', label: 'report' });
    expect(put).toMatchObject({ size: 12, turn_id: 'report' });
    const out = join(dir, 'out.txt');
    await plain.ok('deliver', { sink: 'file', path: out });
    expect((await import('node:fs')).readFileSync(out, 'utf8')).toBe('hello report');
    w.close();
    await plain.until(() => false, 200).catch(() => {});
    const after = (await plain.ok('list_sessions')).sessions as Record<string, unknown>[];
    expect(after[0]!.state).toBe('exited');
  });
});
