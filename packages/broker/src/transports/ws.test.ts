import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { WebSocket } from 'ws';
import { PROTOCOL_VERSION, decodePayload, encodeFrame } from '@clippy/protocol';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';

type Msg = Record<string, unknown>;

let tb: TestBroker;
const sockets: WebSocket[] = [];
beforeEach(async () => {
  tb = await startTestBroker();
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
  await tb.stop();
});

/** A WebSocket test client: one binary message = one MessagePack payload (no length prefix). */
async function wsClient(path: string) {
  const ws = new WebSocket(`ws+unix://${path}:/`);
  sockets.push(ws);
  const messages: Msg[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data: Buffer) => {
    messages.push(decodePayload(data) as Msg);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const waitFor = async (match: (m: Msg) => boolean): Promise<Msg> => {
    for (;;) {
      const found = messages.find(match);
      if (found) return found;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const send = (m: object, withPrefix = false) => {
    const f = encodeFrame(m);
    ws.send(withPrefix ? f : f.subarray(4));
  };
  return { ws, messages, waitFor, send };
}

describe('WebSocket transport', () => {
  it('serves hello, list_sessions and attach on the ws Unix socket (0600)', async () => {
    const path = tb.broker.wsSocketPath!;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const c = await wsClient(path);
    c.send({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' });
    expect((await c.waitFor((m) => m.type === 'hello_ack')).status).toBe('ok');
    c.send({ type: 'spawn', id: 1, command: 'cat', env: childEnv(), cwd: tmpdir() });
    const spawned = await c.waitFor((m) => m.id === 1);
    expect(spawned.status).toBe('ok');
    // A length-prefixed message is accepted too.
    c.send({ type: 'list_sessions', id: 2 }, true);
    const list = await c.waitFor((m) => m.id === 2);
    expect((list.sessions as Msg[]).map((s) => s.session)).toEqual([spawned.session]);
    c.send({ type: 'attach', id: 3, session: spawned.session });
    expect((await c.waitFor((m) => m.id === 3)).status).toBe('ok');
    c.send({ type: 'input', id: 4, session: spawned.session, data: Buffer.from('over-ws\r') });
    await c.waitFor(
      (m) =>
        m.type === 'output' &&
        Buffer.from(m.data as Uint8Array)
          .toString()
          .includes('over-ws'),
    );
    // The same session is visible over the Unix socket: one broker, two transports.
    const u = await tb.client();
    expect(((await u.ok('list_sessions')).sessions as Msg[]).length).toBe(1);
  });

  it('survives random binary and text messages on many WebSocket connections', async () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let k = 0; k < 10; k++) {
      const c = await wsClient(tb.broker.wsSocketPath!);
      if (k % 2) c.send({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' });
      for (let i = 0; i < 40; i++) {
        const len = Math.floor(rand() * 100);
        const bytes = Buffer.from(Array.from({ length: len }, () => Math.floor(rand() * 256)));
        if (i % 7 === 0) c.ws.send(bytes.toString('latin1'));
        else if (i % 3 === 0)
          c.send({ type: 'attach', id: i, session: bytes.toString('hex') || 'x' });
        else c.ws.send(bytes);
      }
    }
    const c = await wsClient(tb.broker.wsSocketPath!);
    c.send({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' });
    expect((await c.waitFor((m) => m.type === 'hello_ack')).status).toBe('ok');
    c.send({ type: 'daemon_status', id: 1 });
    expect((await c.waitFor((m) => m.id === 1)).pid).toBe(process.pid);
  });

  it('answers errors like the Unix socket and closes on malformed payloads', async () => {
    const c = await wsClient(tb.broker.wsSocketPath!);
    c.send({ type: 'list_sessions', id: 7 });
    expect((await c.waitFor((m) => m.id === 7)).error).toBe('handshake_required');
    const closed = new Promise<void>((r) => c.ws.once('close', () => r()));
    c.ws.send(Buffer.from([0xc1]));
    expect((await c.waitFor((m) => m.error === 'malformed_frame')).id).toBe(0);
    await closed;
  });
});
