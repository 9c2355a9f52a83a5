/**
 * Connections that never prove themselves (no token on the web port, no hello on the sockets)
 * cannot take the daemon down (issue #30, break 3: 22,500 idle TCP connections to the web port
 * used up the daemon's 20,000 descriptors; `clippy ls` failed with EPIPE and `clippy new` with
 * `forkpty(3) failed`). The daemon runs here with a limit of MAX_FILES descriptors, so twice as
 * many connections reach it as 22,500 reached 20,000; the web port is flooded by another
 * local user (a throwaway one), the Unix sockets by the user (only they can reach them).
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PROTOCOL_VERSION, decodePayload, encodeFrame } from '@clippy/protocol';
import { TestDaemon } from '@clippy/testkit/daemon';
import { runClippy } from '@clippy/testkit/cli-pty';
import { LocalUser, localUserUnavailable } from '@clippy/testkit/local-user';
import { until } from '@clippy/testkit/until';
import { PENDING_HELLO_LIMIT, WEB_PENDING_LIMIT } from '../src/constants.js';

/** The daemon's descriptor limit: small, so that a flood reaches it quickly. */
const MAX_FILES = 1024;
/** Connections in each flood: twice the limit, as 22,500 were to 20,000 descriptors. */
const FLOOD = 2 * MAX_FILES;
/** How long a flood may take to be placed on a loaded 2-core machine. */
const FLOOD_TIMEOUT_MS = 60_000;
/** Descriptors the daemon may open beyond its count before a flood (a session, a client). */
const SLACK_FDS = 32;

const missing = localUserUnavailable();

/**
 * Another user's flood (run with `node -e`): opens `count` TCP connections to the port, sends
 * nothing, and keeps them. Prints once every attempt has connected or failed.
 */
const FLOOD_SCRIPT = String.raw`
const net = require('node:net');
const [port, count] = process.argv.slice(1).map(Number);
let settled = 0, connected = 0, failed = 0, closed = 0;
const sockets = [];
for (let i = 0; i < count; i++) {
  const s = net.connect(port, '127.0.0.1');
  sockets.push(s);
  let done = false;
  const settle = () => {
    if (done) return;
    done = true;
    if (++settled === count)
      process.stdout.write(JSON.stringify({ settled, connected, failed }) + '\n');
  };
  s.on('connect', () => { connected++; settle(); });
  s.on('error', () => { failed++; settle(); });
  s.on('close', () => { closed++; settle(); });
}
`;

/** Opens `count` connections to a Unix socket that say nothing; resolves once each connected or failed. */
async function floodUnix(path: string, count: number, into: Socket[]): Promise<void> {
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(path);
          into.push(s);
          s.once('connect', () => resolve());
          s.once('error', () => resolve());
          s.once('close', () => resolve());
        }),
    ),
  );
}

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** A signed-in page's connection (the token, hello answered) made before a flood. */
async function signedIn(port: number, token: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const ack = new Promise((r) => ws.once('message', r));
  ws.send(
    encodeFrame({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' }).subarray(4),
  );
  await ack;
  return ws;
}

/** The answer to list_sessions over a page's connection. */
function listOver(ws: WebSocket): Promise<Record<string, unknown>> {
  const answer = new Promise<Record<string, unknown>>((r) =>
    ws.once('message', (d: Buffer) => r(decodePayload(d) as Record<string, unknown>)),
  );
  ws.send(encodeFrame({ type: 'list_sessions', id: 7 }).subarray(4));
  return answer;
}

describe('connections that do not prove themselves are capped', () => {
  let d: TestDaemon;
  let user: LocalUser | null = null;
  const held: Socket[] = [];

  beforeAll(async () => {
    d = await TestDaemon.start({ maxFiles: MAX_FILES });
    if (!missing) user = LocalUser.create();
  });

  afterAll(async () => {
    for (const s of held.splice(0)) s.destroy();
    user?.dispose();
    await d?.stop();
  });

  it.skipIf(missing)(
    'another user’s idle connections to the web port leave clippy ls, clippy new and signed-in pages working',
    async () => {
      const web = await runClippy(['web', '--json'], d.env.env);
      expect(web.code, web.stderr).toBe(0);
      const { port, token } = JSON.parse(web.stdout) as { port: number; token: string };
      const page = await signedIn(port, token);
      const before = openFiles(d.pid);

      const flood: ChildProcess = user!.spawn('node', [
        '-e',
        FLOOD_SCRIPT,
        String(port),
        String(FLOOD),
      ]);
      let placed = '';
      flood.stdout!.on('data', (b: Buffer) => (placed += b.toString()));
      await until(() => placed.includes('\n'), 'the flood placed', FLOOD_TIMEOUT_MS);

      // While the other user holds what it still can:
      const ls = await runClippy(['ls'], d.env.env);
      expect(ls.code, ls.stderr).toBe(0);
      const created = await runClippy(
        ['new', '-d', '--name', 'after-flood', '--', 'sleep', '60'],
        d.env.env,
      );
      expect(created.code, created.stderr).toBe(0);
      expect(openFiles(d.pid)).toBeLessThanOrEqual(before + WEB_PENDING_LIMIT + SLACK_FDS);
      // A page signed in before the flood goes on; a new page load gets through too.
      expect(await listOver(page)).toMatchObject({ id: 7, status: 'ok' });
      const index = await fetch(`http://127.0.0.1:${port}/`);
      expect(index.status).toBe(200);
      page.terminate();
      flood.kill('SIGKILL');
    },
    FLOOD_TIMEOUT_MS * 2,
  );

  it(
    'idle connections to the Unix sockets leave clippy ls and clippy new working',
    async () => {
      const before = openFiles(d.pid);
      await floodUnix(d.env.socket, FLOOD / 2, held);
      await floodUnix(d.env.wsSocket, FLOOD / 2, held);
      const ls = await runClippy(['ls'], d.env.env);
      expect(ls.code, ls.stderr).toBe(0);
      const created = await runClippy(
        ['new', '-d', '--name', 'after-unix-flood', '--', 'sleep', '60'],
        d.env.env,
      );
      expect(created.code, created.stderr).toBe(0);
      // Each socket holds at most its cap of connections that said no hello.
      expect(openFiles(d.pid)).toBeLessThanOrEqual(before + 2 * PENDING_HELLO_LIMIT + SLACK_FDS);
      for (const s of held.splice(0)) s.destroy();
    },
    FLOOD_TIMEOUT_MS * 2,
  );
});
