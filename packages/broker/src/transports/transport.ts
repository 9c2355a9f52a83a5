import { FrameError } from '@clippy/protocol';
import { FairInbox } from './fair-inbox.js';
import type { PendingTicket } from './pending-connections.js';
import {
  PartialFrameGuard,
  type PartialFrameBudget,
  type StreamFailure,
} from './partial-frames.js';

export type { StreamFailure } from './partial-frames.js';

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
  /**
   * The byte stream could not be decoded, or a frame took too long or too much memory; the
   * connection must be closed after answering.
   */
  onFrameError(listener: (error: StreamFailure) => void): void;
  /** Called once when the connection is gone (either side closed it). */
  onClose(listener: () => void): void;
  /** The peer said hello: it no longer counts against its socket's cap of pending connections. */
  handshaken(): void;
}

/** A listening transport: hands each new connection to the broker. */
export interface Transport {
  readonly path: string;
  /** Stops accepting; existing connections are left to the broker. */
  close(): Promise<void>;
}

/** What every transport needs from the broker to bound a connection's input. */
export interface InputLimits {
  /** Shared by every connection of every transport. */
  budget: PartialFrameBudget;
  frameTimeoutMs: number;
  requestsPerTurn: number;
}

/**
 * The listener slots every connection has, and the input path they share: received messages go
 * through a fair inbox (bounded work per turn of the event loop), unfinished frames through a
 * guard (time and memory bounds). Transports call `deliver`, `trackPartial` and `failFrame`.
 */
export abstract class ConnectionListeners {
  protected emitMessage: (message: unknown) => void = () => {};
  protected emitFrameError: (error: StreamFailure) => void = () => {};
  protected emitClose: () => void = () => {};
  /** Set once the input failed: nothing more is read or handled. */
  protected inputFailed = false;
  private readonly inbox: FairInbox;
  private readonly partial: PartialFrameGuard;

  constructor(
    limits: InputLimits,
    /** Its place among the connections that have not said hello yet, if it is counted. */
    private readonly pendingTicket: PendingTicket | null = null,
  ) {
    this.inbox = new FairInbox(limits.requestsPerTurn, {
      message: (m) => this.emitMessage(m),
      failure: (f) => this.emitFrameError(f),
      pause: () => {
        // Not reading, the daemon holds up the frame: its time must not run (PartialFrameGuard).
        this.partial.pause();
        this.pauseReading();
      },
      resume: () => {
        if (this.inputFailed) return;
        this.partial.resume();
        this.resumeReading();
      },
    });
    this.partial = new PartialFrameGuard(limits.budget, limits.frameTimeoutMs, (f) =>
      this.failInput(f),
    );
  }

  /** Stop taking bytes from the peer (a backlog waits, or the input failed). */
  protected abstract pauseReading(): void;
  protected abstract resumeReading(): void;

  onMessage(listener: (message: unknown) => void): void {
    this.emitMessage = listener;
  }

  onFrameError(listener: (error: StreamFailure) => void): void {
    this.emitFrameError = listener;
  }

  /** Decoded messages, in order; handled now or in a later turn (see FairInbox). */
  protected deliver(messages: readonly unknown[]): void {
    if (this.inputFailed || messages.length === 0) return;
    this.inbox.push(messages);
  }

  /** After each read: the bytes held for an unfinished frame, and whether one was finished. */
  protected trackPartial(pending: number, completed: boolean): void {
    if (!this.inputFailed) this.partial.update(pending, completed);
  }

  handshaken(): void {
    this.pendingTicket?.settle();
  }

  /** The connection is gone: its held bytes, backlog and place among pending ones are released. */
  protected disposeInput(): void {
    this.pendingTicket?.settle();
    this.partial.dispose();
    this.inbox.dispose();
  }

  private failInput(failure: StreamFailure): void {
    if (this.inputFailed) return;
    this.inputFailed = true;
    this.pauseReading();
    this.partial.dispose();
    this.inbox.fail(failure);
  }

  onClose(listener: () => void): void {
    this.emitClose = listener;
  }

  /** Reports a decoding failure (anything thrown while decoding counts as a malformed frame). */
  protected failFrame(err: unknown): void {
    const error = err instanceof FrameError ? err : new FrameError('malformed_frame', String(err));
    this.failInput({ code: error.code, message: error.message });
  }
}
