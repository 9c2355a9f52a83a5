import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { PartialFrameBudget } from '../transports/partial-frames.js';
import type { Connection } from '../transports/transport.js';
import { WebCodes } from './web-codes.js';
import { WebEndpoint } from './web-endpoint.js';

// The web port's guard, asserted with nothing but node's HTTP client and `ws`: the endpoint
// alone, a page of one file, no daemon, no build, no browser. Every credential and every
// Host/Origin check is here, so removing one turns this test red wherever the suite runs.

/** A 48-hex-digit token, as WebTokenFile makes them. */
const TOKEN = 'a1'.repeat(24);
/** Anything that is not the token, of the same shape. */
const WRONG = '0'.repeat(48);
const FOREIGN_ORIGIN = 'http://evil.example';
/** What every refusal tells the person who meets it in a browser. */
const WHAT_TO_DO = 'run `clippy web` in a terminal and open the URL it prints';

type Reply = { status: number; headers: Record<string, unknown>; body: string };

let endpoint: WebEndpoint;
let assets: string;
/** Connections the endpoint accepted (a credential was shown), closed after each test. */
let accepted: Connection[];
/** Every refusal the endpoint reported: why, and whether a wrong credential was shown. */
let refused: { why: string; credential: boolean }[];
/** What asked for another machine's daemon (`/ws?host=`). */
let bridged: string[];

beforeEach(async () => {
  assets = mkdtempSync(join(tmpdir(), 'clippy-web-assets-'));
  writeFileSync(join(assets, 'index.html'), '<!doctype html><title>clippy</title>');
  writeFileSync(join(assets, 'app.js'), '/* the page */');
  accepted = [];
  refused = [];
  bridged = [];
  endpoint = await WebEndpoint.start({
    port: 0,
    assetsDir: assets,
    token: TOKEN,
    codes: new WebCodes(),
    bridge: (ws, host) => {
      bridged.push(host);
      ws.close();
    },
    limits: { budget: new PartialFrameBudget(16), frameTimeoutMs: 5_000, requestsPerTurn: 64 },
    pendingLimit: 16,
    pendingTimeoutMs: 30_000,
    accept: (connection) => accepted.push(connection),
    onRefused: (why, _source, credential) => {
      refused.push({ why, credential });
      return 0; // answered at once: the slowing of repeated refusals is refusals.test.ts's
    },
    onPushedOut: () => {},
  });
});

afterEach(async () => {
  for (const c of accepted) c.destroy();
  await endpoint.dispose();
  rmSync(assets, { recursive: true, force: true });
});

const base = () => `http://127.0.0.1:${endpoint.port}`;
const wsUrl = (query: string) => `ws://127.0.0.1:${endpoint.port}/ws${query}`;

function http(
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${base()}${path}`, options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a WebSocket upgrade gets: 'open', or the status and body it was refused with. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<Reply | 'open'> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        ws.terminate();
      });
    });
    ws.once('error', reject);
  });
}

/** The token exchanged for a tab's session, as the page does it. */
async function session(): Promise<string> {
  const granted = await http('/session', {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, origin: base() },
  });
  expect(granted.status).toBe(200);
  return (JSON.parse(granted.body) as { session: string }).session;
}

describe('the web port’s Host and Origin guard', () => {
  it('serves the page to its own origin and to no other site or name', async () => {
    expect((await http('/')).status).toBe(200);
    expect((await http('/app.js', { headers: { origin: base() } })).status).toBe(200);
    expect((await http('/', { headers: { host: `localhost:${endpoint.port}` } })).status).toBe(200);
    const foreign: [string, Record<string, string>, string][] = [
      ['another site', { origin: FOREIGN_ORIGIN }, `Origin '${FOREIGN_ORIGIN}'`],
      ['another port', { origin: 'http://127.0.0.1:1' }, "Origin 'http://127.0.0.1:1'"],
      // DNS rebinding: a page on evil.example, which resolves to 127.0.0.1, sends its own name.
      ['a rebound name', { host: `evil.example:${endpoint.port}` }, "Host 'evil.example:"],
      ['another port in Host', { host: '127.0.0.1:1' }, "Host '127.0.0.1:1'"],
    ];
    for (const [what, headers, named] of foreign) {
      const r = await http('/', { headers });
      expect(r.status, what).toBe(403);
      expect(r.body, what).toContain(named);
      expect(r.body, what).toContain(WHAT_TO_DO);
    }
    expect(refused.map((r) => r.credential)).toEqual([false, false, false, false]);
  });

  it('refuses the token itself when it comes from another site or name', async () => {
    const exchange = await http('/session', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, origin: FOREIGN_ORIGIN },
    });
    expect(exchange.status).toBe(403);
    expect(exchange.body).not.toContain('session');
    const fromSite = await upgrade(wsUrl(`?token=${TOKEN}`), { origin: FOREIGN_ORIGIN });
    expect(fromSite).toMatchObject({ status: 403, body: expect.stringContaining('Origin') });
    const rebound = await upgrade(wsUrl(`?token=${TOKEN}`), {
      origin: base(),
      host: `rebound.example:${endpoint.port}`,
    });
    expect(rebound).toMatchObject({ status: 403, body: expect.stringContaining('Host') });
    const tab = await session();
    expect(await upgrade(wsUrl(`?session=${tab}`), { origin: FOREIGN_ORIGIN })).toMatchObject({
      status: 403,
    });
    expect(accepted).toEqual([]);
  });
});

describe('the web port’s credentials', () => {
  it('gives a tab’s session for the token only, by POST, as a bearer', async () => {
    const wrong = await http('/session', {
      method: 'POST',
      headers: { authorization: `Bearer ${WRONG}`, origin: base() },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toContain('wrong web view token');
    const none = await http('/session', { method: 'POST', headers: { origin: base() } });
    expect(none.status).toBe(403);
    expect(none.body).toContain('token is required');
    // A cookie (what an older page kept) is no bearer.
    const cookie = await http('/session', {
      method: 'POST',
      headers: { cookie: `clippy_token_${endpoint.port}=${TOKEN}` },
    });
    expect(cookie.status).toBe(403);
    const get = await http('/session', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(405);
    expect(refused).toEqual([
      { why: 'wrong web view token', credential: true },
      { why: expect.stringContaining('token is required'), credential: false },
      { why: expect.stringContaining('token is required'), credential: false },
    ]);
    const tab = await session();
    expect(tab).toMatch(/^[0-9a-f]{48}\.[0-9a-f]{64}$/);
  });

  it('upgrades /ws for the token or a tab’s session, and for nothing else', async () => {
    const origin = { origin: base() };
    const tab = await session();
    expect(await upgrade(wsUrl(`?session=${tab}`), origin)).toBe('open');
    expect(await upgrade(wsUrl(`?token=${TOKEN}`), origin)).toBe('open');
    expect(accepted).toHaveLength(2);
    const refusedWith = async (query: string) => {
      const r = await upgrade(wsUrl(query), origin);
      expect(r, query).not.toBe('open');
      expect((r as Reply).status, query).toBe(403);
      expect((r as Reply).body, query).toContain(WHAT_TO_DO);
      return (r as Reply).body;
    };
    expect(await refusedWith(`?session=${WRONG}`)).toContain('session is not known');
    // The tab's session with its signature's last digit changed.
    const forged = tab.slice(0, -1) + (tab.endsWith('0') ? '1' : '0');
    expect(await refusedWith(`?session=${forged}`)).toContain('session is not known');
    expect(await refusedWith(`?token=${WRONG}`)).toContain('wrong web view token');
    expect(await refusedWith(`?token=${TOKEN.slice(1)}`)).toContain('wrong web view token');
    expect(await refusedWith('')).toContain('token or a tab');
    // Another machine's daemon is reached through this port only with a credential too.
    expect(await refusedWith(`?token=${WRONG}&host=box`)).toContain('wrong web view token');
    expect(bridged).toEqual([]);
    expect(accepted).toHaveLength(2);
    expect(refused.filter((r) => r.credential)).toHaveLength(5);
  });
});
