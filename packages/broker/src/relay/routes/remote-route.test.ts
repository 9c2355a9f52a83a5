import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameDecoder, encodeFrame } from '@clippy/protocol';
import { followRemote } from './remote-route.js';
import type { RouteTurn } from './records.js';
import { makeLeg } from './route.js';

// A route's source on a daemon older than hop counts: its `turn_completed` carries no
// `turn.hops`. The route keeps working (such a turn starts a chain, as before) and the daemon
// says once that the hop limit cannot end a cycle through that machine. The other daemon is a
// small peer on a real Unix socket that answers as an older clippy does (one from today is in
// cli/src/route-cycles.e2e.test.ts).

const dirs: string[] = [];
const servers: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A peer with session `codex` that announces the turns given, with the fields given. */
async function olderPeer(announce: Record<string, unknown>[]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-peer-'));
  dirs.push(dir);
  const socket = path.join(dir, 'broker.sock');
  const server = net.createServer((conn) => {
    const decoder = new FrameDecoder();
    const send = (m: object) => conn.write(encodeFrame(m));
    conn.on('data', (chunk) => {
      for (const m of decoder.push(chunk) as Record<string, unknown>[]) {
        const reply = { type: 'response', id: m.id, status: 'ok' };
        if (m.type === 'hello') send({ type: 'hello_ack', id: 0, status: 'ok', version: 1 });
        else if (m.type === 'subscribe') send(reply);
        else if (m.type === 'list_sessions') {
          send({ ...reply, sessions: [{ session: 's1', name: 'codex', state: 'idle' }] });
          // Subscribed and found: the turns complete.
          for (const turn of announce)
            send({ type: 'turn_completed', id: 0, session: 's1', name: 'codex', turn });
        } else if (m.type === 'get_turn') {
          const turn_id = m.turn_id as string;
          send({
            ...reply,
            turn: { turn_id, text: `text of ${turn_id}`, prompt: 'p', interrupted: false },
          });
        }
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(socket, r));
  return socket;
}

/** Follows `codex` on the peer: the turns with their hops, and what the daemon log said. */
async function follow(socket: string, turns: number) {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  const leg = makeLeg(
    'in',
    'route',
    [{ session: 'old:codex', name: 'old:codex' }],
    { session: 't', name: 'claude' },
    {},
    'plain',
    {},
  );
  const got: [RouteTurn, number][] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const source = await followRemote(
    leg,
    'codex',
    { socket, host: 'old' },
    {
      turn: (turn, hops) => {
        got.push([turn, hops]);
        if (got.length === turns) done();
      },
      end: (reason) => {
        throw new Error(`the route ended: ${reason}`);
      },
      log,
    },
  );
  await all;
  source.dispose();
  const warnings = lines
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level === 40);
  return { got, warnings };
}

describe('a route from a daemon older than hop counts', () => {
  it('counts its turns as new chains, and warns once', async () => {
    const socket = await olderPeer([{ turn_id: 's1:1' }, { turn_id: 's1:2' }]);
    const { got, warnings } = await follow(socket, 2);
    expect(got.map(([t, hops]) => [t.turn_id, t.text, hops])).toEqual([
      ['s1:1', 'text of s1:1', 0],
      ['s1:2', 'text of s1:2', 0],
    ]);
    expect(warnings.map((w) => w.msg)).toEqual([
      'turns from old carry no hop count (its clippy is older): route in counts each as a new chain, so its hop limit cannot end a cycle of routes through old',
    ]);
  });

  it('takes the count a peer sends, and none that is not a count', async () => {
    const socket = await olderPeer([
      { turn_id: 's1:1', hops: 7 },
      { turn_id: 's1:2', hops: -3 },
      { turn_id: 's1:3', hops: 'many' },
    ]);
    const { got, warnings } = await follow(socket, 3);
    expect(got.map(([t, hops]) => [t.turn_id, hops])).toEqual([
      ['s1:1', 7],
      ['s1:2', 0],
      ['s1:3', 0],
    ]);
    expect(warnings).toHaveLength(1);
  });
});
