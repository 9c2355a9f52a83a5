import { createServer, type Server, type Socket } from 'node:net';
import { FrameDecoder } from '@clippy/protocol';
import { ConnectionListeners, type Connection, type Transport } from './transport.js';
import { listenUnix } from './listen.js';
import { CLOSE_FLUSH_MS } from '../constants.js';

class UnixConnection extends ConnectionListeners implements Connection {
  readonly transport = 'unix' as const;
  private readonly decoder = new FrameDecoder();
  private failed = false;
  private closed = false;

  constructor(private readonly socket: Socket) {
    super();
    socket.on('data', (chunk: Buffer) => this.handleData(chunk));
    // Errors (EPIPE, ECONNRESET) always end in 'close'; nothing else to do with them.
    socket.on('error', () => {});
    socket.once('close', () => {
      this.closed = true;
      this.emitClose();
    });
  }

  private handleData(chunk: Buffer): void {
    if (this.failed) return;
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (err) {
      this.failed = true;
      this.socket.pause();
      this.failFrame(err);
      return;
    }
    for (const m of messages) {
      if (this.closed) return;
      this.emitMessage(m);
    }
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
    onConnection: (connection: Connection) => void,
  ): Promise<UnixTransport> {
    const server = createServer((socket) => onConnection(new UnixConnection(socket)));
    await listenUnix(server, path);
    return new UnixTransport(path, server);
  }

  close(): Promise<void> {
    // net.Server removes its own socket file on close.
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
