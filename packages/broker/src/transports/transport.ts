import { FrameError } from '@clippy/protocol';

/**
 * One client connection, whatever carries it (Unix socket or WebSocket). Handlers only ever
 * see this interface: they never know which transport they serve.
 */
export interface Connection {
  readonly transport: 'unix' | 'ws';
  /** Sends one encoded frame (`[u32 length][MessagePack]`); the transport re-frames if it must. */
  send(frame: Buffer): void;
  /** Bytes queued for this client and not yet handed to the kernel. */
  readonly bufferedAmount: number;
  /** Flushes what is queued, then closes. */
  close(): void;
  /** Closes at once, dropping what is queued. */
  destroy(): void;
  /** Each decoded message (a plain object from MessagePack), in order. */
  onMessage(listener: (message: unknown) => void): void;
  /** The byte stream could not be decoded; the connection must be closed after answering. */
  onFrameError(listener: (error: FrameError) => void): void;
  /** Called once when the connection is gone (either side closed it). */
  onClose(listener: () => void): void;
}

/** A listening transport: hands each new connection to the broker. */
export interface Transport {
  readonly path: string;
  /** Stops accepting; existing connections are left to the broker. */
  close(): Promise<void>;
}

/** The listener slots every connection has; transports call the `emit…` side. */
export abstract class ConnectionListeners {
  protected emitMessage: (message: unknown) => void = () => {};
  protected emitFrameError: (error: FrameError) => void = () => {};
  protected emitClose: () => void = () => {};

  onMessage(listener: (message: unknown) => void): void {
    this.emitMessage = listener;
  }

  onFrameError(listener: (error: FrameError) => void): void {
    this.emitFrameError = listener;
  }

  onClose(listener: () => void): void {
    this.emitClose = listener;
  }

  /** Reports a decoding failure (anything thrown while decoding counts as a malformed frame). */
  protected failFrame(err: unknown): void {
    this.emitFrameError(
      err instanceof FrameError ? err : new FrameError('malformed_frame', String(err)),
    );
  }
}
