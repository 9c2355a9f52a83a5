import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

type Attempt = { ok: true; ws: WebSocket } | { ok: false; status: number; body: string };

/** Tries an upgrade with the real `ws` client; a refusal gives its HTTP status and body. */
function tryUpgrade(url: string, options: ConstructorParameters<typeof WebSocket>[2] = {}) {
  return new Promise<Attempt>((resolve, reject) => {
    const ws = new WebSocket(url, options);
    sockets.push(ws);
    ws.once('open', () => resolve({ ok: true, ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

/** A hello over an opened socket is answered: the broker really serves it. */
async function helloOk(ws: WebSocket): Promise<boolean> {
  const ack = new Promise<Msg>((r) =>
    ws.once('message', (d: Buffer) => r(decodePayload(d) as Msg)),
  );
  ws.send(
    encodeFrame({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' }).subarray(4),
  );
  return (await ack).status === 'ok';
}

describe('WebSocket upgrade policy', () => {
  const url = () => `ws+unix://${tb.broker.wsSocketPath!}:/`;

  it('refuses every upgrade that carries an Origin while no token is configured', async () => {
    for (const origin of ['https://evil.example', 'http://localhost:3000', 'null']) {
      const a = await tryUpgrade(url(), { origin });
      expect(a).toMatchObject({ ok: false, status: 403 });
      expect((a as { body: string }).body).toMatch(/no web view token is configured/);
    }
    // Old drafts send the origin as Sec-WebSocket-Origin.
    const draft = await tryUpgrade(url(), { protocolVersion: 8, origin: 'https://evil.example' });
    expect(draft).toMatchObject({ ok: false, status: 403 });
    // Without an Origin (every non-browser client) the upgrade is served.
    const plain = await tryUpgrade(url());
    expect(plain.ok && (await helloOk(plain.ws))).toBe(true);
  });

  it('refuses a Host that is not local; accepts localhost, 127.0.0.1 and [::1]', async () => {
    for (const host of ['evil.example', 'evil.example:80', 'localhost.evil.example', '10.0.0.1']) {
      const a = await tryUpgrade(url(), { headers: { host } });
      expect(a).toMatchObject({ ok: false, status: 403 });
      expect((a as { body: string }).body).toMatch(/is not local/);
    }
    for (const host of ['localhost', 'LOCALHOST:8080', '127.0.0.1:1', '[::1]', '[::1]:443']) {
      const a = await tryUpgrade(url(), { headers: { host } });
      expect(a.ok && (await helloOk(a.ws))).toBe(true);
    }
  });

  it('accepts an Origin that presents the configured token, refuses a missing or wrong one', async () => {
    await tb.stop();
    tb = await startTestBroker({ wsToken: 'web-view-secret' });
    const origin = 'http://localhost:5173';
    const missing = await tryUpgrade(url(), { origin });
    expect(missing).toMatchObject({ ok: false, status: 403 });
    expect((missing as { body: string }).body).toMatch(/must present the web view token/);
    const wrong = await tryUpgrade(`${url()}?token=guess`, { origin });
    expect(wrong).toMatchObject({ ok: false, status: 403 });
    expect((wrong as { body: string }).body).toMatch(/wrong web view token/);
    const right = await tryUpgrade(`${url()}?token=web-view-secret`, { origin });
    expect(right.ok && (await helloOk(right.ws))).toBe(true);
  });

  it('reads the token from ws-token in the socket directory, at each upgrade', async () => {
    const origin = 'http://localhost:5173';
    const tokenUrl = `${url()}?token=from-the-file`;
    expect(await tryUpgrade(tokenUrl, { origin })).toMatchObject({ ok: false, status: 403 });
    writeFileSync(join(dirname(tb.broker.socketPath), 'ws-token'), 'from-the-file\n', {
      mode: 0o600,
    });
    const a = await tryUpgrade(tokenUrl, { origin });
    expect(a.ok && (await helloOk(a.ws))).toBe(true);
  });
});

describe('WebSocket frame bounds', () => {
  it('closes a connection whose message stays unfinished with frame_timeout; pings are whole frames', async () => {
    await tb.stop();
    tb = await startTestBroker({ limits: { frameTimeoutMs: 300 } });
    const pinger = await wsClient(tb.broker.wsSocketPath!);
    pinger.send({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' });
    await pinger.waitFor((m) => m.type === 'hello_ack');
    const stalled = await wsClient(tb.broker.wsSocketPath!);
    // The first fragment of a message whose last fragment never comes.
    stalled.ws.send(encodeFrame({ type: 'hello', id: 0 }).subarray(4), { fin: false });
    // The scenario: a ping every 100 ms, past the 300 ms frame bound (pings must not reset it).
    for (let i = 0; i < 8; i++) {
      pinger.ws.ping();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await stalled.waitFor((m) => m.type === 'response')).toMatchObject({
      id: 0,
      error: 'frame_timeout',
    });
    expect(pinger.ws.readyState).toBe(WebSocket.OPEN);
    pinger.send({ type: 'daemon_status', id: 1 });
    expect((await pinger.waitFor((m) => m.id === 1)).status).toBe('ok');
  });
});
