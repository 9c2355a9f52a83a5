import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { FRAME_HEADER_SIZE, FrameError, MAX_PAYLOAD_SIZE, decodeMessage } from '@clippy/protocol';
import { ConnectionListeners, type Connection, type Transport } from './transport.js';
import { listenUnix } from './listen.js';
import { CLOSE_FLUSH_MS } from '../constants.js';

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
class WsConnection extends ConnectionListeners implements Connection {
  readonly transport = 'ws' as const;
  private failed = false;
  private closed = false;

  constructor(private readonly ws: WebSocket) {
    super();
    ws.on('message', (data, isBinary) => this.handleMessage(toBuffer(data), isBinary));
    ws.on('error', () => {});
    ws.once('close', () => {
      this.closed = true;
      this.emitClose();
    });
  }

  private handleMessage(data: Buffer, isBinary: boolean): void {
    if (this.failed || this.closed) return;
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
      this.failed = true;
      this.failFrame(err);
      return;
    }
    // Outside the try: a failing handler is the connection's business, not a bad frame.
    this.emitMessage(message);
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
  ) {}

  static async listen(
    path: string,
    onConnection: (connection: Connection) => void,
  ): Promise<WsTransport> {
    const http = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' });
      res.end('clippyd speaks WebSocket here (binary MessagePack messages)\n');
    });
    // A length prefix may accompany the payload (see WsConnection), hence the extra 4 bytes;
    // ws closes a connection that sends more (close code 1009).
    const wss = new WebSocketServer({
      server: http,
      maxPayload: MAX_PAYLOAD_SIZE + FRAME_HEADER_SIZE,
    });
    wss.on('connection', (ws) => onConnection(new WsConnection(ws)));
    wss.on('error', () => {});
    await listenUnix(http, path);
    return new WsTransport(path, http, wss);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.wss.close();
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }
}
