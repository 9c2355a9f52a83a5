import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { FRAME_HEADER_SIZE, FrameError, MAX_PAYLOAD_SIZE, decodeMessage } from '@clippy/protocol';
import {
  ConnectionListeners,
  type Connection,
  type InputLimits,
  type Transport,
} from './transport.js';
import { listenUnix } from './listen.js';
import type { PendingConnections, PendingTicket } from './pending-connections.js';
import { refuseUpgrade, sendUpgradeRefusal } from './upgrade-policy.js';
import { CLOSE_FLUSH_MS, HELLO_TIMEOUT_MS } from '../constants.js';

export interface WsOptions {
  limits: InputLimits;
  /** This socket's connections that have not said hello. */
  pending: PendingConnections;
  /** How long a connection may take to upgrade (then hello's own timer runs). */
  helloTimeoutMs: number;
  /** The web view's token, read at each upgrade (it may be configured while the broker runs). */
  token: () => string | null;
  /** An upgrade was refused (logged by the broker). */
  onRefused: (reason: string) => void;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/**
 * WebSocket framing: every WS message is ONE protocol message, a binary WS message holding the
 * MessagePack payload WITHOUT the 4-byte length prefix (WebSocket frames already delimit it).
 * For clients that reuse a stream encoder, an incoming message that starts with a length
 * prefix matching its own size is accepted too (a MessagePack map never starts with 0x00).
 */
export class WsConnection extends ConnectionListeners implements Connection {
  readonly transport = 'ws' as const;
  private closed = false;
  /** Bytes read since the last complete message: the unfinished one (within one read). */
  private pending = 0;
  private completedInRead = false;

  constructor(
    private readonly ws: WebSocket,
    socket: Socket,
    limits: InputLimits,
    pending: PendingTicket | null = null,
  ) {
    super(limits, pending);
    ws.on('message', (data, isBinary) => this.handleMessage(toBuffer(data), isBinary));
    // Control frames are whole frames too: a client that only pings is not mid-frame.
    ws.on('ping', () => (this.completedInRead = true));
    ws.on('pong', () => (this.completedInRead = true));
    // Runs after ws's own 'data' listener (added before the connection was handed over), so
    // the messages this read completed have been seen. What follows the last one in the same
    // read is not counted: the bound is exact to within one read (64 KiB).
    socket.on('data', (chunk: Buffer) => {
      this.pending = this.completedInRead ? 0 : this.pending + chunk.length;
      const completed = this.completedInRead;
      this.completedInRead = false;
      this.trackPartial(this.pending, completed);
    });
    ws.on('error', () => {});
    ws.once('close', () => {
      this.closed = true;
      this.disposeInput();
      this.emitClose();
    });
  }

  protected pauseReading(): void {
    this.ws.pause();
  }

  protected resumeReading(): void {
    if (!this.closed) this.ws.resume();
  }

  private handleMessage(data: Buffer, isBinary: boolean): void {
    this.completedInRead = true;
    if (this.inputFailed || this.closed) return;
    let message: Record<string, unknown>;
    try {
      if (!isBinary)
        throw new FrameError(
          'malformed_frame',
          'text WebSocket messages are not accepted; send binary MessagePack',
        );
      let payload = data;
      if (
        data.length >= FRAME_HEADER_SIZE &&
        data[0] === 0 &&
        data.readUInt32BE(0) === data.length - FRAME_HEADER_SIZE
      ) {
        payload = data.subarray(FRAME_HEADER_SIZE);
      }
      if (payload.length > MAX_PAYLOAD_SIZE) {
        throw new FrameError(
          'payload_too_large',
          `message of ${payload.length} bytes exceeds the ${MAX_PAYLOAD_SIZE}-byte limit`,
        );
      }
      message = decodeMessage(payload);
    } catch (err) {
      this.failFrame(err);
      return;
    }
    // Outside the try: a failing handler is the connection's business, not a bad frame.
    this.deliver([message]);
  }

  send(frame: Buffer): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(frame.subarray(FRAME_HEADER_SIZE), { binary: true });
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  close(): void {
    if (this.ws.readyState !== this.ws.OPEN) {
      this.ws.terminate();
      return;
    }
    this.ws.close(1000, 'closing');
    // A peer that never answers the close handshake must not keep the connection alive.
    setTimeout(() => this.ws.terminate(), CLOSE_FLUSH_MS).unref();
  }

  destroy(): void {
    this.ws.terminate();
  }
}

/** The WebSocket transport, on a Unix socket beside the main one (never TCP). */
export class WsTransport implements Transport {
  private constructor(
    readonly path: string,
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    private readonly pending: PendingConnections,
  ) {}

  static async listen(
    path: string,
    options: WsOptions,
    onConnection: (connection: Connection) => void,
  ): Promise<WsTransport> {
    const http = createServer(
      // The upgrade request itself is bounded like hello: a half-sent request holds nothing long.
      { headersTimeout: HELLO_TIMEOUT_MS, requestTimeout: HELLO_TIMEOUT_MS },
      (_req, res) => {
        res.writeHead(426, { 'content-type': 'text/plain' });
        res.end('clippyd speaks WebSocket here (binary MessagePack messages)\n');
      },
    );
    // A length prefix may accompany the payload (see WsConnection), hence the extra 4 bytes;
    // ws closes a connection that sends more (close code 1009).
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_PAYLOAD_SIZE + FRAME_HEADER_SIZE,
    });
    // node ends a connection that sends no request only at its next check of the HTTP timeouts
    // (every 30 s, so 10–40 s): the deadline ends it when its time is up.
    const tickets = new WeakMap<Socket, PendingTicket>();
    http.on('connection', (socket: Socket) => {
      const ticket = options.pending.admit(() => socket.destroy(), options.helloTimeoutMs);
      tickets.set(socket, ticket);
      socket.once('close', () => ticket.settle());
    });
    http.on('upgrade', (req, socket: Socket, head: Buffer) => {
      socket.on('error', () => {});
      const refusal = refuseUpgrade(req, options.token());
      if (refusal) {
        options.onRefused(refusal);
        sendUpgradeRefusal(socket, `${refusal}\n`);
        return;
      }
      // Upgraded: hello's own timer bounds the rest; it still counts until hello.
      const ticket = tickets.get(socket) ?? null;
      ticket?.clearDeadline();
      wss.handleUpgrade(req, socket, head, (ws) =>
        onConnection(new WsConnection(ws, socket, options.limits, ticket)),
      );
    });
    wss.on('error', () => {});
    await listenUnix(http, path);
    return new WsTransport(path, http, wss, options.pending);
  }

  close(): Promise<void> {
    this.pending.dispose();
    return new Promise((resolve) => {
      this.wss.close();
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }
}
