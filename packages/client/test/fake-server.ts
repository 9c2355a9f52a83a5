import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import {
  FrameDecoder,
  FRAME_HEADER_SIZE,
  PROTOCOL_VERSION,
  decodePayload,
  encodeFrame,
} from '@clippy/protocol';

export type Msg = Record<string, unknown> & { type: string; id: number };

/** One accepted connection of the fake broker. */
export interface FakeConn {
  send(message: object): void;
  destroy(): void;
  received: Msg[];
}

/** Answers a request: return a message to send, or nothing (the handler may answer later itself). */
export type Handler = (message: Msg, conn: FakeConn) => object | void;

/**
 * A stand-in broker: answers `hello` (version check like the real one) and hands every other
 * message to the handler. Listens on a Unix socket in a fresh temp dir, frame codec or WebSocket.
 */
export class FakeServer {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-client-'));
  readonly socketPath = path.join(this.dir, 'broker.sock');
  readonly conns: FakeConn[] = [];
  private server: net.Server | http.Server | null = null;
  private wss: WebSocketServer | null = null;
  private sockets = new Set<net.Socket>();

  constructor(
    private readonly handler: Handler,
    private readonly kind: 'unix' | 'ws' = 'unix',
  ) {}

  /** Where the WebSocket kind listens: beside the main socket, as resolveSocketPaths puts it. */
  readonly wsSocketPath = path.join(this.dir, 'broker.ws.sock');

  async start(): Promise<this> {
    if (this.kind === 'unix') {
      const server = net.createServer((socket) => this.acceptUnix(socket));
      this.server = server;
    } else {
      const server = http.createServer();
      this.wss = new WebSocketServer({ server });
      this.wss.on('connection', (ws) => {
        const conn: FakeConn = {
          received: [],
          send: (m) => ws.send(encodeFrame(m).subarray(FRAME_HEADER_SIZE)),
          destroy: () => ws.terminate(),
        };
        this.conns.push(conn);
        ws.on('message', (data: Buffer) => this.onMessage(decodePayload(data) as Msg, conn));
      });
      server.on('connection', (s) => this.sockets.add(s));
      this.server = server;
    }
    await new Promise<void>((r) =>
      this.server!.listen(this.kind === 'ws' ? this.wsSocketPath : this.socketPath, r),
    );
    return this;
  }

  private acceptUnix(socket: net.Socket): void {
    this.sockets.add(socket);
    const decoder = new FrameDecoder();
    const conn: FakeConn = {
      received: [],
      send: (m) => socket.write(encodeFrame(m)),
      destroy: () => socket.destroy(),
    };
    this.conns.push(conn);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      for (const m of decoder.push(chunk)) this.onMessage(m as Msg, conn);
    });
  }

  private onMessage(m: Msg, conn: FakeConn): void {
    conn.received.push(m);
    if (m.type === 'hello') {
      if (m.version !== PROTOCOL_VERSION) {
        conn.send({
          type: 'hello_ack',
          id: 0,
          status: 'error',
          error: 'version_mismatch',
          message: 'nope',
        });
        conn.destroy();
        return;
      }
      conn.send({
        type: 'hello_ack',
        id: 0,
        status: 'ok',
        version: PROTOCOL_VERSION,
        broker_pid: process.pid,
      });
      return;
    }
    const answer = this.handler(m, conn);
    if (answer) conn.send(answer);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.wss?.close();
    if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export const ok = (m: Msg, fields: object = {}) => ({
  type: 'response',
  id: m.id,
  status: 'ok',
  ...fields,
});
