import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import { RawClient } from '../test-support/raw-client.js';

/** A small cap, so that a test reaches it with a handful of connections. */
const CAP = 4;
/** Test timeout of a 300 ms deadline: a loaded machine's margin, far below node's 10–40 s. */
const CLOSED_WITHIN_MS = 5_000;

let tb: TestBroker | null = null;
const raw: RawClient[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const c of raw.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.destroy();
  await tb?.stop();
  tb = null;
});

/** A connection to the main socket that says nothing. */
async function silent(): Promise<RawClient> {
  const c = await RawClient.connect(tb!.socket);
  raw.push(c);
  return c;
}

/** A connection to the WebSocket socket that sends nothing (not even its upgrade); resolves once open. */
function silentWs(): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(tb!.broker.wsSocketPath!);
    sockets.push(socket);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('connections that say no hello are capped per socket', () => {
  it('closes the oldest silent connection when one more comes at the cap, saying why; clients that said hello are not counted', async () => {
    tb = await startTestBroker({ limits: { pendingHelloLimit: CAP } });
    const polite = await tb.client();
    const first = await silent();
    const others = [];
    for (let i = 1; i < CAP; i++) others.push(await silent());
    // At the cap: the next one pushes out the oldest, which is told why.
    const newest = await silent();
    const r = await first.waitFor((m) => m.type === 'response');
    expect(r).toMatchObject({ id: 0, status: 'error', error: 'too_many_connections' });
    expect(r.message).toMatch(/more than 4 connections .* waiting to say hello/);
    await first.waitClosed();
    // The rest wait on; a client that says hello at once gets in (pushing out the next oldest).
    const late = await RawClient.open(tb.socket);
    raw.push(late);
    expect((await late.request('daemon_status')).status).toBe('ok');
    await others[0]!.waitClosed();
    for (const c of [...others.slice(1), newest]) expect(c.closed).toBe(false);
    expect((await polite.request('daemon_status')).status).toBe('ok');
  });

  it('counts the WebSocket socket’s connections too', async () => {
    tb = await startTestBroker({ limits: { pendingHelloLimit: CAP } });
    const waiting = [];
    for (let i = 0; i <= CAP; i++) waiting.push(await silentWs());
    // The oldest was pushed out at once; the others wait on (for hello's 10 s).
    await waiting[0]!.closed;
    for (const w of waiting.slice(1)) expect(w.socket.readyState).toBe('open');
    // The main socket has its own count: it was never full.
    const c = await tb.client();
    expect((await c.request('daemon_status')).status).toBe('ok');
  });

  it(
    'closes a connection to the WebSocket socket that never upgrades, after hello’s time',
    async () => {
      tb = await startTestBroker({ limits: { helloTimeoutMs: 300 } });
      const idle = await silentWs();
      await idle.closed;
    },
    // Well before node's own HTTP timeout would (10 s, checked every 30 s).
    CLOSED_WITHIN_MS,
  );
});
