import { createServer, type Server } from 'node:http';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { FRAME_HEADER_SIZE, FrameError, MAX_PAYLOAD_SIZE, decodePayload } from '@clippy/protocol';
import type { Connection, Transport } from './transport.js';
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
class WsConnection implements Connection {
  readonly transport = 'ws' as const;
  private messageListener: (message: unknown) => void = () => {};
  private frameErrorListener: (error: FrameError) => void = () => {};
  private closeListener: () => void = () => {};
  private failed = false;
  private closed = false;

  constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => this.handleMessage(toBuffer(data), isBinary));
    ws.on('error', () => {});
    ws.once('close', () => {
      this.closed = true;
      this.closeListener();
    });
  }

  private handleMessage(data: Buffer, isBinary: boolean): void {
    if (this.failed || this.closed) return;
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
      const value = decodePayload(payload);
      // Plain objects only: msgpackr decodes some reserved bytes (0xc1) to class instances.
      if (
        value === null ||
        typeof value !== 'object' ||
        Object.getPrototypeOf(value) !== Object.prototype
      ) {
        throw new FrameError('malformed_frame', 'message payload is not a MessagePack map');
      }
      this.messageListener(value);
    } catch (err) {
      this.failed = true;
      this.frameErrorListener(
        err instanceof FrameError ? err : new FrameError('malformed_frame', String(err)),
      );
    }
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

  onMessage(listener: (message: unknown) => void): void {
    this.messageListener = listener;
  }

  onFrameError(listener: (error: FrameError) => void): void {
    this.frameErrorListener = listener;
  }

  onClose(listener: () => void): void {
    this.closeListener = listener;
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
