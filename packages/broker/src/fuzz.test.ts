import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { PROTOCOL_VERSION, REQUEST_SCHEMAS, encodeFrame } from '@clippy/protocol';
import { seededRandom } from '@clippy/testkit/random';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { childEnv, startTestBroker, waitUntil, type TestBroker } from './test-support/fixtures.js';

// Requests that would legitimately end the daemon or start real programs are not fuzzed.
const TYPES = Object.keys(REQUEST_SCHEMAS).filter((t) => t !== 'shutdown');
const FIELDS = [
  'session',
  'data',
  'cols',
  'rows',
  'command',
  'args',
  'env',
  'cwd',
  'name',
  'mode',
  'bytes',
  'text',
  'enter',
  'signal',
  'remove',
  'events',
  'sessions',
  'turn_id',
  'timeout_ms',
  'sink',
  'path',
  'from',
  'to',
  'state',
  'pid',
  'pattern',
  'content',
  'interrupted',
  'timestamp',
  'label',
  'version',
  'role',
  'limit',
  'raw',
];

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 12);
  switch (k) {
    case 0:
      return Math.floor(r() * 2 ** 32) - 2 ** 31;
    case 1:
      return r() * 1e6;
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return 'x'.repeat(Math.floor(r() * 300));
    case 5:
      return Buffer.from(Array.from({ length: Math.floor(r() * 64) }, () => Math.floor(r() * 256)));
    case 6:
      return depth > 2
        ? []
        : Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    case 7:
      return depth > 2
        ? {}
        : { [FIELDS[Math.floor(r() * FIELDS.length)]!]: randomValue(r, depth + 1) };
    case 8:
      return ['SIGHUP', 'SIGFOO', 'interactive', 'observer', 'idle', 'inject', 'file', ''][
        Math.floor(r() * 8)
      ];
    case 9:
      return -1;
    case 10:
      return 2 ** 40;
    default:
      return `r${Math.floor(r() * 1e9).toString(36)}zz`;
  }
}

function randomMessage(r: () => number): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  const roll = r();
  m.type = roll < 0.9 ? TYPES[Math.floor(r() * TYPES.length)] : randomValue(r);
  m.id = r() < 0.8 ? Math.floor(r() * 1000) : randomValue(r);
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) m[FIELDS[Math.floor(r() * FIELDS.length)]!] = randomValue(r);
  // Random commands never name a real program (they end in "zz").
  if (m.type === 'spawn' && typeof m.command === 'string')
    m.command = `${m.command}-nonexistent-zz`;
  if (m.type === 'spawn' && m.command === undefined) m.command = 'nonexistent-zz';
  return m;
}

/** One connection's worth of garbage. */
function garbage(r: () => number): Buffer[] {
  const out: Buffer[] = [];
  if (r() < 0.7)
    out.push(
      encodeFrame({
        type: 'hello',
        id: 0,
        version: PROTOCOL_VERSION,
        role: r() < 0.5 ? 'client' : 'wrapper',
      }),
    );
  const count = 20 + Math.floor(r() * 60);
  for (let i = 0; i < count; i++) {
    const kind = r();
    if (kind < 0.6) {
      out.push(encodeFrame(randomMessage(r)));
    } else if (kind < 0.7) {
      const f = encodeFrame(randomMessage(r));
      const bytes = Buffer.from(f);
      bytes[4 + Math.floor(r() * (bytes.length - 4))] = Math.floor(r() * 256);
      out.push(bytes);
    } else if (kind < 0.8) {
      out.push(encodeFrame(randomValue(r) as object));
    } else if (kind < 0.88) {
      const f = encodeFrame(randomMessage(r));
      out.push(f.subarray(0, Math.floor(r() * f.length)));
    } else if (kind < 0.95) {
      out.push(
        Buffer.from(Array.from({ length: Math.floor(r() * 200) }, () => Math.floor(r() * 256))),
      );
    } else {
      const h = Buffer.alloc(4);
      h.writeUInt32BE(0x01000001 + Math.floor(r() * 0xfe000000));
      out.push(h);
    }
  }
  return out;
}

let tb: TestBroker;
let errors: string[];
beforeEach(async () => {
  errors = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      errors.push(chunk.toString());
      done();
    },
  });
  tb = await startTestBroker({ logger: pino({ level: 'error' }, sink) });
});
afterEach(async () => {
  await tb.stop();
});

describe('fuzz', () => {
  it('survives thousands of random, mutated, truncated and oversize frames', async () => {
    const c = await tb.client();
    const cat = await c.ok('spawn', {
      command: 'cat',
      env: childEnv(),
      cwd: tmpdir(),
      name: 'keeper',
    });
    await c.ok('attach', { session: cat.session });
    let frames = 0;
    const r = seededRandom(20261122);
    for (let round = 0; round < 6; round++) {
      await Promise.all(
        Array.from({ length: 25 }, () => {
          const chunks = garbage(r);
          frames += chunks.length;
          return new Promise<void>((resolve) => {
            const s = connect(tb.socket);
            s.on('error', () => {});
            s.on('data', () => {});
            s.once('connect', () => {
              for (const ch of chunks) s.write(ch);
              // The scenario: a client that hangs up a moment after its garbage (the broker
              // may or may not have read it all: both must be survived).
              setTimeout(() => {
                s.destroy();
                resolve();
              }, 50);
            });
            s.once('close', () => resolve());
          });
        }),
      );
    }
    expect(frames).toBeGreaterThan(3000);
    // The daemon still serves a new client, and the existing session still answers.
    const d = await tb.client();
    expect((await d.ok('daemon_status')).pid).toBe(process.pid);
    await c.ok('input', { session: 'keeper', data: Buffer.from('still-alive\r') });
    await c.until(() =>
      c
        .output(cat.session as string)
        .toString()
        .includes('still-alive'),
    );
    const sessions = (await d.ok('list_sessions')).sessions as Record<string, unknown>[];
    expect(sessions.find((s) => s.name === 'keeper')?.exited_at).toBeNull();
    // Every garbage connection is gone from the broker's state.
    await waitUntil(() => tb.broker.connections.size === 2);
    // No garbage reached an unexpected code path (those are logged as errors).
    expect(errors).toEqual([]);
  });
});
