import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PAYLOAD_SIZE, PROTOCOL_VERSION } from '@clippy/protocol';
import { startTestBroker, waitUntil, type TestBroker } from './test-support/fixtures.js';
import { RawClient } from './test-support/raw-client.js';

let tb: TestBroker;
const raw: RawClient[] = [];

async function connect(): Promise<RawClient> {
  const c = await RawClient.connect(tb.socket);
  raw.push(c);
  return c;
}

beforeEach(async () => {
  tb = await startTestBroker();
});
afterEach(async () => {
  for (const c of raw.splice(0)) c.close();
  await tb.stop();
});

describe('handshake', () => {
  it('answers hello with hello_ack carrying version and pid', async () => {
    const c = await connect();
    c.sendRaw({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' });
    const ack = await c.waitFor((m) => m.type === 'hello_ack');
    expect(ack).toMatchObject({
      status: 'ok',
      id: 0,
      version: PROTOCOL_VERSION,
      broker_pid: process.pid,
    });
  });

  it('refuses a wrong version with version_mismatch and closes', async () => {
    const c = await connect();
    c.sendRaw({ type: 'hello', id: 0, version: PROTOCOL_VERSION + 1, role: 'client' });
    const ack = await c.waitFor((m) => m.type === 'hello_ack');
    expect(ack).toMatchObject({
      status: 'error',
      error: 'version_mismatch',
      version: PROTOCOL_VERSION,
    });
    expect(String(ack.message)).toContain(String(PROTOCOL_VERSION + 1));
    await c.waitClosed();
  });

  it('refuses hello with id != 0 with invalid_hello_id and closes', async () => {
    const c = await connect();
    c.sendRaw({ type: 'hello', id: 5, version: PROTOCOL_VERSION, role: 'client' });
    const ack = await c.waitFor((m) => m.type === 'hello_ack');
    expect(ack).toMatchObject({ status: 'error', error: 'invalid_hello_id' });
    await c.waitClosed();
  });

  it('answers requests before hello with handshake_required and keeps the connection', async () => {
    const c = await connect();
    c.sendRaw({ type: 'list_sessions', id: 3 });
    const r = await c.waitFor((m) => m.type === 'response');
    expect(r).toMatchObject({ id: 3, status: 'error', error: 'handshake_required' });
    c.sendRaw({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' });
    expect((await c.waitFor((m) => m.type === 'hello_ack')).status).toBe('ok');
    expect((await c.request('list_sessions')).status).toBe('ok');
  });
});

describe('errors after the handshake', () => {
  it('answers an unknown type with unknown_type, never silence', async () => {
    const c = await tb.client();
    c.sendRaw({ type: 'frobnicate', id: 9 });
    const r = await c.waitFor((m) => m.type === 'response' && m.id === 9);
    expect(r).toMatchObject({ status: 'error', error: 'unknown_type' });
    expect(String(r.message)).toContain('frobnicate');
    expect((await c.request('list_sessions')).status).toBe('ok');
  });

  it('answers a missing field with missing_field naming it, and a bad value with invalid_message', async () => {
    const c = await tb.client();
    const missing = await c.request('attach', {});
    expect(missing).toMatchObject({ status: 'error', error: 'missing_field' });
    expect(String(missing.message)).toContain('session');
    const bad = await c.request('resize', { session: 'x', cols: 'wide', rows: 3 });
    expect(bad).toMatchObject({ status: 'error', error: 'invalid_message' });
    expect(String(bad.message)).toContain('cols');
  });

  it('sends no response to a valid notification (id 0)', async () => {
    const c = await tb.client();
    c.sendRaw({ type: 'list_sessions', id: 0 });
    const r = await c.request('daemon_status');
    expect(r.status).toBe('ok');
    expect(c.messages.filter((m) => m.type === 'response').length).toBe(1);
  });

  it('closes a connection announcing a frame over 16 MiB after an error with id 0; others are unaffected', async () => {
    const other = await tb.client();
    const c = await tb.client();
    const header = Buffer.alloc(4);
    header.writeUInt32BE(MAX_PAYLOAD_SIZE + 1);
    c.writeBytes(header);
    const r = await c.waitFor((m) => m.type === 'response');
    expect(r).toMatchObject({ id: 0, status: 'error', error: 'payload_too_large' });
    await c.waitClosed();
    expect((await other.request('list_sessions')).status).toBe('ok');
  });

  it('closes a connection sending malformed bytes after malformed_frame', async () => {
    const other = await tb.client();
    const c = await tb.client();
    c.writeBytes(Buffer.from([0, 0, 0, 3, 0xc1, 0xc1, 0xc1]));
    const r = await c.waitFor((m) => m.type === 'response');
    expect(r).toMatchObject({ id: 0, status: 'error', error: 'malformed_frame' });
    await c.waitClosed();
    expect((await other.request('daemon_status')).status).toBe('ok');
  });

  it('drops a connection after a fatal error even if the peer never closes its side', async () => {
    const { connect } = await import('node:net');
    const s = connect({ path: tb.socket, allowHalfOpen: true });
    s.on('error', () => {});
    s.on('data', () => {});
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write(Buffer.from([0, 0, 0, 3, 0xc1, 0xc1, 0xc1]));
    await waitUntil(() => tb.broker.connections.size === 1);
    await waitUntil(() => tb.broker.connections.size === 0, 3_000);
    s.destroy();
  });

  it('treats a non-map payload as malformed', async () => {
    const c = await tb.client();
    c.writeBytes(Buffer.from([0, 0, 0, 1, 0x05]));
    const r = await c.waitFor((m) => m.type === 'response');
    expect(r.error).toBe('malformed_frame');
    await c.waitClosed();
  });

  it('reports daemon_status fields', async () => {
    const c = await tb.client();
    const r = await c.ok('daemon_status');
    expect(r).toMatchObject({
      pid: process.pid,
      version: PROTOCOL_VERSION,
      sessions: 0,
      live_sessions: 0,
      socket: tb.socket,
      ws_socket: tb.broker.wsSocketPath,
    });
    expect(r.clients).toBeGreaterThanOrEqual(1);
    expect(r.rss_bytes).toBeGreaterThan(0);
    expect(typeof r.package_version).toBe('string');
  });
});
