import { createServer, type Server, type Socket } from 'node:net';
import { FrameDecoder } from '@clippy/protocol';
import {
  ConnectionListeners,
  type Connection,
  type InputLimits,
  type Transport,
} from './transport.js';
import { listenUnix } from './listen.js';
import { CLOSE_FLUSH_MS } from '../constants.js';

class UnixConnection extends ConnectionListeners implements Connection {
  readonly transport = 'unix' as const;
  private readonly decoder = new FrameDecoder();
  private closed = false;

  constructor(
    private readonly socket: Socket,
    limits: InputLimits,
  ) {
    super(limits);
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
  ) {}

  static async listen(
    path: string,
    limits: InputLimits,
    onConnection: (connection: Connection) => void,
  ): Promise<UnixTransport> {
    const server = createServer((socket) => onConnection(new UnixConnection(socket, limits)));
    await listenUnix(server, path);
    return new UnixTransport(path, server);
  }

  close(): Promise<void> {
    // net.Server removes its own socket file on close.
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
