import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { PROTOCOL_VERSION, decodePayload, encodeFrame } from '@clippy/protocol';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker } from '../server.js';
import { silentLogger } from '../log.js';
import { RawClient } from '../test-support/raw-client.js';
import { startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import type { BrokerLimits } from '../config.js';

/** Test timeout of a 300 ms deadline: a loaded machine's margin, far below node's 10–40 s. */
const CLOSED_WITHIN_MS = 5_000;

let tb: TestBroker | null = null;
const sockets: Socket[] = [];
const pages: WebSocket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const p of pages.splice(0)) p.terminate();
  await tb?.stop();
  tb = null;
});

/** A broker with the web view started: its port and token. */
async function webView(limits: Partial<BrokerLimits> = {}) {
  tb = await startTestBroker({ limits });
  const c = await tb.client();
  const { port, token, url } = (await c.ok('web_start')) as unknown as {
    port: number;
    token: string;
    url: string;
  };
  return { port, token, url };
}

/** A TCP connection to the port that sends nothing; resolves once open. */
function idle(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

type Reply = { status: number; headers: Record<string, unknown>; body: string };

function http(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A page's WebSocket (Origin: the endpoint) with `query`, hello answered; or the refusal. */
function page(port: number, query: string): Promise<WebSocket | Reply> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?${query}`, {
      origin: `http://127.0.0.1:${port}`,
    });
    pages.push(ws);
    ws.once('open', () => {
      ws.once('message', () => resolve(ws));
      ws.send(
        encodeFrame({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' }).subarray(
          4,
        ),
      );
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once('error', reject);
  });
}

/** Whether a page's connection still answers a request. */
function answers(ws: WebSocket): Promise<boolean> {
  return new Promise((resolve) => {
    ws.once('message', (d: Buffer) => resolve((decodePayload(d) as { id: number }).id === 9));
    ws.send(encodeFrame({ type: 'daemon_status', id: 9 }).subarray(4));
  });
}

describe('the web view’s sign-in', () => {
  it('gives the page its token in the URL fragment, a tab session for it, and never a cookie', async () => {
    const { port, token, url } = await webView();
    expect(url).toBe(`http://127.0.0.1:${port}/#token=${token}`);
    // The old way (the token in the query) sets nothing either.
    for (const path of ['/', `/?token=${token}`, '/app.js']) {
      const r = await http(port, path);
      expect(r.status, path).toBe(200);
      expect(r.headers['set-cookie'], path).toBeUndefined();
    }
    const granted = await http(port, '/session', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(granted.status).toBe(200);
    expect(granted.headers['set-cookie']).toBeUndefined();
    const { session } = JSON.parse(granted.body) as { session: string };
    expect(await page(port, `session=${session}`)).toBeInstanceOf(WebSocket);
    const unknown = (await page(port, `session=${'1'.repeat(48)}`)) as Reply;
    expect(unknown.status).toBe(403);
    expect(unknown.body).toContain('this tab’s session is not known to the web view');
    expect(unknown.body).toContain('run `clippy web` in a terminal and open the URL it prints');
    // A cookie from an older page (the token in it) lets nothing in.
    const cookie = (await http(port, '/session', {
      method: 'POST',
      headers: { cookie: `clippy_token_${port}=${token}` },
    })) as Reply;
    expect(cookie.status).toBe(403);
  });
});

describe('the web view’s token across restarts', () => {
  it('is kept in a 0600 file: a tab’s session outlives a web view and a daemon restart; --rotate ends it', async () => {
    const { port, token } = await webView();
    const file = join(tb!.env.XDG_STATE_HOME!, 'clippy', 'web-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const exchange = async (t: string) => {
      const r = await http(port, '/session', {
        method: 'POST',
        headers: { authorization: `Bearer ${t}` },
      });
      return JSON.parse(r.body) as { session: string };
    };
    const { session } = await exchange(token);
    const signedIn = async () => (await page(port, `session=${session}`)) instanceof WebSocket;
    const c = await tb!.client();
    await c.ok('web_stop');
    expect(await c.ok('web_start', { port })).toMatchObject({ token, started: true });
    expect(await signedIn()).toBe(true);
    // The daemon itself restarts (same state directory): same token, the tab is let in.
    await tb!.broker.close();
    const again = await startBroker({ env: tb!.env, logger: silentLogger() });
    try {
      const d = await RawClient.open(again.socketPath);
      try {
        // It ran when the daemon stopped: the new daemon started it again, on its port.
        expect(await d.ok('web_start', { port })).toMatchObject({ token, started: false });
        expect(await signedIn()).toBe(true);
        const rotated = (await d.ok('web_start', { rotate: true })) as unknown as {
          token: string;
          port: number;
        };
        expect(rotated.port).toBe(port);
        expect(rotated.token).not.toBe(token);
        expect(((await page(port, `session=${session}`)) as Reply).status).toBe(403);
        const fresh = await exchange(rotated.token);
        expect(await page(port, `session=${fresh.session}`)).toBeInstanceOf(WebSocket);
      } finally {
        d.close();
      }
    } finally {
      await again.close();
    }
  });
});

describe('connections to the web port that show no token', () => {
  it(
    'are closed once their time is up',
    async () => {
      const { port } = await webView({ webPendingTimeoutMs: 300 });
      const c = await idle(port);
      await c.closed;
    },
    // Well before node's own HTTP timeout would (10 s, checked every 30 s).
    CLOSED_WITHIN_MS,
  );

  it('are capped: the oldest is closed for a newcomer; a signed-in page is not counted', async () => {
    const cap = 4;
    const { port, token } = await webView({ webPendingLimit: cap });
    const signedIn = (await page(port, `token=${token}`)) as WebSocket;
    const waiting = [];
    for (let i = 0; i <= cap; i++) waiting.push(await idle(port));
    await waiting[0]!.closed;
    for (const w of waiting.slice(1)) expect(w.socket.readyState).toBe('open');
    expect(await answers(signedIn)).toBe(true);
    // A page load gets through the full count (pushing out the next oldest).
    expect((await http(port, '/')).status).toBe(200);
    await waiting[1]!.closed;
  });
});
