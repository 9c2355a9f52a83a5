import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '@clippy/testkit/until';
import { connect, type ClippyClient } from '@clippy/client';
import { FrameDecoder, PROTOCOL_VERSION, encodeFrame } from '@clippy/protocol';
import { ACK_INTERVAL_BYTES } from '@clippy/protocol';
import { runAttach } from './attach-session.js';
import { parseDetachKey } from '@clippy/protocol';

type Msg = Record<string, unknown> & { type: string; id: number };

/**
 * A minimal broker for one attach: answers hello and attach, records everything it gets. With
 * `holdDetach`, its answer to a detach waits for that promise.
 */
async function fakeBroker(
  onAttach: (m: Msg, send: (o: object) => void, socket: net.Socket) => void,
  holdDetach?: Promise<void>,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-attach-'));
  const socketPath = path.join(dir, 'b.sock');
  const received: Msg[] = [];
  const sockets: net.Socket[] = [];
  let closedSockets = 0;
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const dec = new FrameDecoder();
    const send = (o: object) => socket.write(encodeFrame(o));
    socket.on('error', () => {});
    socket.on('close', () => closedSockets++);
    socket.on('data', (chunk) => {
      for (const raw of dec.push(chunk)) {
        const m = raw as Msg;
        received.push(m);
        if (m.type === 'hello')
          send({ type: 'hello_ack', id: 0, status: 'ok', version: PROTOCOL_VERSION });
        else if (m.type === 'attach') onAttach(m, send, socket);
        else if (m.type === 'detach' && holdDetach)
          void holdDetach.then(() => send({ type: 'response', id: m.id, status: 'ok' }));
        else if (m.id !== 0) send({ type: 'response', id: m.id, status: 'ok' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(socketPath, r));
  return {
    socketPath,
    received,
    /** How many client connections have closed (all they sent has arrived). */
    closed: () => closedSockets,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sink(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('latin1') };
}

const attachResult = (m: Msg, replay: string) => ({
  type: 'response',
  id: m.id,
  status: 'ok',
  session: 'id1',
  name: 'demo',
  cols: 80,
  rows: 24,
  state: 'idle',
  replay: Buffer.from(replay),
  exited: false,
});

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function setup(onAttach: Parameters<typeof fakeBroker>[0], holdDetach?: Promise<void>) {
  const broker = await fakeBroker(onAttach, holdDetach);
  stops.push(() => broker.stop());
  const client: ClippyClient = await connect({ socket: broker.socketPath, env: {} });
  stops.push(async () => void (await client.close()));
  const stdin = new PassThrough();
  const out = sink();
  const err = sink();
  const run = runAttach(client, {
    session: 'demo',
    detachKey: parseDetachKey('ctrl-]'),
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: out.stream as unknown as NodeJS.WriteStream,
    stderr: err.stream,
  });
  return { broker, client, stdin, out, err, run };
}

describe('runAttach', () => {
  it('writes the replay before live output that arrived with it, acks every ACK_INTERVAL_BYTES, detaches on the key', async () => {
    const { broker, stdin, out, run } = await setup((m, send) => {
      // The response and the first live output in the same socket write.
      send(attachResult(m, 'REPLAY;'));
      send({ type: 'output', id: 0, session: 'id1', data: Buffer.from('LIVE1;') });
      send({ type: 'output', id: 0, session: 'other', data: Buffer.from('NOT-MINE;') });
      send({ type: 'output', id: 0, session: 'id1', data: Buffer.alloc(140_000, 'x') });
    });
    await until(() => out.text().includes('x'.repeat(140_000)));
    expect(out.text().startsWith('REPLAY;LIVE1;')).toBe(true);
    expect(out.text()).not.toContain('NOT-MINE');
    await until(() => broker.received.some((m) => m.type === 'ack'));
    const acks = broker.received.filter((m) => m.type === 'ack');
    expect(
      acks.every(
        (a) => a.id === 0 && a.session === 'id1' && (a.bytes as number) >= ACK_INTERVAL_BYTES,
      ),
    ).toBe(true);
    expect(acks.reduce((n, a) => n + (a.bytes as number), 0)).toBeGreaterThan(
      140_006 - ACK_INTERVAL_BYTES,
    );

    stdin.write(Buffer.from('ab\x1dcd'));
    expect(await run).toBe(0);
    const inputs = broker.received.filter((m) => m.type === 'input');
    expect(inputs.map((m) => Buffer.from(m.data as Uint8Array).toString())).toEqual(['ab']);
    // Keystrokes are notifications (id 0): no response per key.
    expect(inputs.every((m) => m.id === 0)).toBe(true);
    expect(broker.received.some((m) => m.type === 'detach' && m.session === 'id1')).toBe(true);
    expect(out.text().endsWith('[detached from demo]\n')).toBe(true);
  });

  it('sends nothing typed after the detach key, even in a later read while the detach is under way', async () => {
    let answerDetach!: () => void;
    const held = new Promise<void>((r) => (answerDetach = r));
    const { broker, stdin, out, run } = await setup((m, send) => send(attachResult(m, '')), held);
    stdin.write(Buffer.from('ab\x1dcd'));
    await until(() => broker.received.some((m) => m.type === 'detach'));
    // Typed after the detach key; the broker has not answered the detach yet.
    stdin.write(Buffer.from('ef'));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    answerDetach();
    expect(await run).toBe(0);
    await until(() => broker.closed() === 1);
    const inputs = broker.received.filter((m) => m.type === 'input');
    expect(inputs.map((m) => Buffer.from(m.data as Uint8Array).toString())).toEqual(['ab']);
    expect(broker.received.filter((m) => m.type === 'detach')).toHaveLength(1);
    expect(out.text().endsWith('[detached from demo]\n')).toBe(true);
  });

  it('resolves with the exit code of the session, or 128+signo', async () => {
    const a = await setup((m, send) => {
      send(attachResult(m, ''));
      send({ type: 'exit', id: 0, session: 'id1', exit_code: 3, signal: null });
    });
    expect(await a.run).toBe(3);
    expect(a.out.text()).not.toContain('detached');
    const b = await setup((m, send) => {
      send(attachResult(m, ''));
      send({ type: 'exit', id: 0, session: 'id1', exit_code: null, signal: 'SIGTERM' });
    });
    expect(await b.run).toBe(143);
  });

  it('resolves 69 with a message when the daemon goes away', async () => {
    const { out, err, run } = await setup((m, send, socket) => {
      send(attachResult(m, 'screen'));
      // The scenario: the daemon goes a moment after answering (not a wait).
      setTimeout(() => socket.destroy(), 50);
    });
    expect(await run).toBe(69);
    expect(err.text()).toMatch(/connection to the clippy daemon was lost/);
    expect(out.text()).toBe('screen');
  });
});
