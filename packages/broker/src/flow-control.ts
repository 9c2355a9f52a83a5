import { encodeOutputFrame } from '@clippy/protocol';
import {
  FLOW_DEMOTE_GRACE_MS,
  FLOW_HIGH_WATERMARK,
  FLOW_LOW_WATERMARK,
  OBSERVER_QUEUE_LIMIT,
} from './constants.js';

/** The watermarks of the flow-control policy (constants.ts; tests shrink them). */
export interface FlowLimits {
  highWatermark: number;
  lowWatermark: number;
  demoteGraceMs: number;
  observerQueueLimit: number;
}

export const DEFAULT_FLOW_LIMITS: FlowLimits = {
  highWatermark: FLOW_HIGH_WATERMARK,
  lowWatermark: FLOW_LOW_WATERMARK,
  demoteGraceMs: FLOW_DEMOTE_GRACE_MS,
  observerQueueLimit: OBSERVER_QUEUE_LIMIT,
};

export type AttachMode = 'interactive' | 'observer';

/**
 * A stretch of a session's output on its way to its clients: the PTY's bytes, and their
 * `output` frame, encoded once for all the socket clients and only when one of them needs it (a
 * terminal the daemon writes itself takes the bytes as they are).
 */
export class OutputBatch {
  private encoded: Buffer | null = null;

  constructor(
    readonly session: string,
    readonly chunks: Buffer[],
    readonly bytes: number,
  ) {}

  frame(): Buffer {
    return (this.encoded ??= encodeOutputFrame(this.session, this.chunks, this.bytes));
  }
}

/** A connection as the socket sink sees it: somewhere to send frames. */
export interface FrameSink {
  send(frame: Buffer): void;
  readonly bufferedAmount: number;
}

/**
 * Where an attachment's output goes: the client's connection (relay: the client writes it to its
 * terminal and acks), or the client's terminal itself (direct attach: the daemon writes it).
 */
export interface FlowSink {
  /** The daemon writes (and reads) the client's terminal itself: direct attach. */
  readonly terminal: boolean;
  /**
   * Live output. `consumed` is for a sink that sees its reader take the bytes (a terminal's
   * writes): it is called with each part as it is taken (the batch's byte count in all), in
   * place of the client's acks.
   */
  sendOutput(batch: OutputBatch, consumed: (bytes: number) => void): void;
  /** The session exited (`frame` is the `exit` push), after all its output. */
  sendExit(frame: Buffer): void;
  /** A one-line message for the user (`frame` is the `notice` push). */
  sendNotice(text: string, frame: Buffer): void;
  /** Output handed to the sink and not yet taken by its reader. */
  readonly bufferedAmount: number;
  /**
   * The attachment ends with the client still there: a terminal is given back (modes the
   * session left on turned off, the cursor below its screen, its writes drained), then
   * `farewell` (a `detached` push) is sent. Resolves when both are done.
   */
  release(farewell: Buffer | null): Promise<void>;
  /** The client is gone: let go of anything held for it at once, writing nothing more. */
  dispose(): void;
}

/** The socket sink: every push goes to the client's connection as its frame. */
export class SocketSink implements FlowSink {
  readonly terminal = false;

  constructor(private readonly connection: FrameSink) {}

  sendOutput(batch: OutputBatch): void {
    this.connection.send(batch.frame());
  }

  sendExit(frame: Buffer): void {
    this.connection.send(frame);
  }

  sendNotice(_text: string, frame: Buffer): void {
    this.connection.send(frame);
  }

  get bufferedAmount(): number {
    return this.connection.bufferedAmount;
  }

  release(farewell: Buffer | null): Promise<void> {
    if (farewell) this.connection.send(farewell);
    return Promise.resolve();
  }

  dispose(): void {}
}

export interface FlowCallbacks {
  /** The attachment started or stopped holding the PTY paused. */
  onHoldChanged(): void;
  /** The client fell beyond its queue limit: it must be detached. */
  onSlowConsumer(): void;
}

/**
 * Flow control of one client attached to one session (VS Code's pty-host scheme plus a way
 * out for stopped clients):
 * - `interactive`: the client acks consumed bytes (a terminal the daemon writes itself: its
 *   completed writes do); above the high watermark of unacked bytes
 *   it "holds" the PTY paused until it is back below the low watermark. If it holds longer
 *   than the demote grace it is demoted: it stops holding and is treated as an observer until
 *   its acks bring it below the low watermark again.
 * - `observer` (and demoted clients): never hold the PTY; if the bytes queued on their
 *   connection (or terminal) pass the queue limit they are detached as slow consumers.
 */
export class Attachment {
  /** Output bytes sent and not yet acknowledged. */
  unacked = 0;
  /** Whether this client currently keeps the PTY paused. */
  holding = false;
  /** An interactive client that held too long and is handled as an observer for now. */
  demoted = false;
  /** The client's own terminal size, when it told one (attach/resize): used by "latest active wins". */
  cols: number | undefined;
  rows: number | undefined;
  /**
   * Whether this client's size may become the session's when it is active (tmux's clients
   * without `ignore-size`): interactive clients that did not ask to ignore it. Observers and
   * viewers (the web view) only take the size on an explicit `resize` with `fit`.
   */
  drivesSize = false;
  /** When this client last took the session's size (a counter, not a clock): 0 never. */
  sizedAt = 0;
  /** Output (and an exit) held back until the attach response (with the replay) has been sent. */
  private pending: Array<OutputBatch | Buffer> | null = [];
  private pendingBytes = 0;
  private demoteTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  /** The sink's readers tell what they consumed here (one function for every batch). */
  private readonly consumed = (bytes: number) => this.ack(bytes);

  constructor(
    readonly mode: AttachMode,
    private readonly sink: FlowSink,
    private readonly limits: FlowLimits,
    private readonly callbacks: FlowCallbacks,
  ) {}

  /** The daemon writes this client's terminal itself (direct attach). */
  get terminal(): boolean {
    return this.sink.terminal;
  }

  get isPending(): boolean {
    return this.pending !== null;
  }

  /** Live output. */
  deliverOutput(batch: OutputBatch): void {
    if (this.disposed) return;
    this.unacked += batch.bytes;
    if (this.pending) this.hold(batch, batch.bytes);
    else {
      this.sink.sendOutput(batch, this.consumed);
      this.checkQueue();
    }
    this.updateHolding();
  }

  /** The session exited (`frame` is the `exit` push): after all output, as output is ordered. */
  deliverExit(frame: Buffer): void {
    if (this.disposed) return;
    if (this.pending) this.hold(frame, frame.length);
    else this.sink.sendExit(frame);
  }

  /** Sends what was held back during the attach; from now on output goes out directly. */
  flushPending(): void {
    if (this.disposed || !this.pending) return;
    const held = this.pending;
    this.pending = null;
    this.pendingBytes = 0;
    for (const item of held) {
      if (item instanceof OutputBatch) this.sink.sendOutput(item, this.consumed);
      else this.sink.sendExit(item);
    }
    this.checkQueue();
  }

  /** A one-line message for the user: to the client, or written into its terminal. */
  notice(text: string, frame: Buffer): void {
    if (!this.disposed) this.sink.sendNotice(text, frame);
  }

  /**
   * Ends the attachment with the client still there (detach, slow consumer, removal, shutdown):
   * its terminal is given back, then `farewell` is sent (see FlowSink.release).
   */
  release(farewell: Buffer | null): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.stop();
    return this.sink.release(farewell);
  }

  ack(bytes: number): void {
    if (this.disposed) return;
    this.unacked = Math.max(0, this.unacked - bytes);
    this.updateHolding();
  }

  /** Gives the client's terminal back and sends `frame`, staying attached (daemon shutdown). */
  tell(frame: Buffer): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return this.sink.release(frame);
  }

  /** The client is gone: nothing more is written to it. */
  dispose(): void {
    if (this.disposed) return;
    this.stop();
    this.sink.dispose();
  }

  private stop(): void {
    this.disposed = true;
    this.pending = null;
    this.clearDemoteTimer();
    if (this.holding) {
      this.holding = false;
      this.callbacks.onHoldChanged();
    }
  }

  private hold(item: OutputBatch | Buffer, bytes: number): void {
    this.pending!.push(item);
    this.pendingBytes += bytes;
    if (this.pendingBytes > this.limits.observerQueueLimit) this.callbacks.onSlowConsumer();
  }

  private checkQueue(): void {
    // Interactive clients are bounded by the watermarks; everyone is bounded by the queue limit.
    if (!this.disposed && this.sink.bufferedAmount > this.limits.observerQueueLimit) {
      this.callbacks.onSlowConsumer();
    }
  }

  private updateHolding(): void {
    if (this.disposed || this.mode !== 'interactive') return;
    if (this.demoted) {
      // Caught up again: back to normal interactive handling.
      if (this.unacked < this.limits.lowWatermark) this.demoted = false;
      return;
    }
    if (!this.holding && this.unacked > this.limits.highWatermark) {
      this.holding = true;
      this.demoteTimer = setTimeout(() => this.demote(), this.limits.demoteGraceMs);
      this.demoteTimer.unref();
      this.callbacks.onHoldChanged();
    } else if (this.holding && this.unacked < this.limits.lowWatermark) {
      this.holding = false;
      this.clearDemoteTimer();
      this.callbacks.onHoldChanged();
    }
  }

  private demote(): void {
    this.demoteTimer = null;
    if (this.disposed || !this.holding) return;
    this.holding = false;
    this.demoted = true;
    this.callbacks.onHoldChanged();
  }

  private clearDemoteTimer(): void {
    if (this.demoteTimer) clearTimeout(this.demoteTimer);
    this.demoteTimer = null;
  }
}
