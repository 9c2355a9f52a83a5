import { createServer, type Server, type Socket } from 'node:net';
import { FrameDecoder, encodeFrame } from '@clippy/protocol';
import {
  ConnectionListeners,
  type Connection,
  type InputLimits,
  type Transport,
} from './transport.js';
import { listenUnix } from './listen.js';
import type { PendingConnections, PendingTicket } from './pending-connections.js';
import { CLOSE_FLUSH_MS } from '../constants.js';

class UnixConnection extends ConnectionListeners implements Connection {
  readonly transport = 'unix' as const;
  private readonly decoder = new FrameDecoder();
  private closed = false;

  constructor(
    private readonly socket: Socket,
    limits: InputLimits,
    pending: PendingTicket,
  ) {
    super(limits, pending);
    socket.on('data', (chunk: Buffer) => this.handleData(chunk));
    // Errors (EPIPE, ECONNRESET) always end in 'close'; nothing else to do with them.
    socket.on('error', () => {});
    socket.once('close', () => {
      this.closed = true;
      this.disposeInput();
      this.emitClose();
    });
  }

  private handleData(chunk: Buffer): void {
    if (this.inputFailed || this.closed) return;
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (err) {
      this.failFrame(err);
      return;
    }
    // Messages first: a failure of the partial frame is answered after them.
    this.deliver(messages);
    this.trackPartial(this.decoder.pendingBytes, messages.length > 0);
  }

  protected pauseReading(): void {
    this.socket.pause();
  }

  protected resumeReading(): void {
    if (!this.closed) this.socket.resume();
  }

  send(frame: Buffer): void {
    if (this.closed || this.socket.destroyed || !this.socket.writable) return;
    this.socket.write(frame);
  }

  get bufferedAmount(): number {
    return this.socket.writableLength;
  }

  close(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    // A peer that never closes its side must not keep the connection (and its state) alive.
    setTimeout(() => this.socket.destroy(), CLOSE_FLUSH_MS).unref();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The main transport: length-prefixed MessagePack frames on a Unix stream socket. */
export class UnixTransport implements Transport {
  private constructor(
    readonly path: string,
    private readonly server: Server,
    private readonly pending: PendingConnections,
  ) {}

  /** `pending`: this socket's connections that have not said hello (their time: hello's timer). */
  static async listen(
    path: string,
    limits: InputLimits,
    pending: PendingConnections,
    onConnection: (connection: Connection) => void,
  ): Promise<UnixTransport> {
    const server = createServer((socket) => {
      const ticket = pending.admit(() => pushedOut(socket, pending.limit));
      onConnection(new UnixConnection(socket, limits, ticket));
    });
    await listenUnix(server, path);
    return new UnixTransport(path, server, pending);
  }

  close(): Promise<void> {
    this.pending.dispose();
    // net.Server removes its own socket file on close.
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Closes a connection that waited longest for its hello while more wait than the cap: it is
 * told why (a client that was merely slow says so), and its descriptor is freed at once.
 */
function pushedOut(socket: Socket, limit: number): void {
  socket.end(
    encodeFrame({
      type: 'response',
      id: 0,
      status: 'error',
      error: 'too_many_connections',
      message: `more than ${limit} connections to the daemon's socket were waiting to say hello; this one waited longest and was closed (retry)`,
    }),
  );
  // The frame is in the kernel (a Unix socket takes it at once): nothing waits on the peer.
  socket.destroy();
}
