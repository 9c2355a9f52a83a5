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

/** What an attachment needs from the connection it writes to. */
export interface FlowSink {
  send(frame: Buffer): void;
  readonly bufferedAmount: number;
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
 * - `interactive`: the client acks consumed bytes; above the high watermark of unacked bytes
 *   it "holds" the PTY paused until it is back below the low watermark. If it holds longer
 *   than the demote grace it is demoted: it stops holding and is treated as an observer until
 *   its acks bring it below the low watermark again.
 * - `observer` (and demoted clients): never hold the PTY; if the bytes queued on their
 *   connection pass the queue limit they are detached as slow consumers.
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
  /** Frames held back until the attach response (with the replay) has been sent. */
  private pending: Buffer[] | null = [];
  private pendingBytes = 0;
  private demoteTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    readonly mode: AttachMode,
    private readonly sink: FlowSink,
    private readonly limits: FlowLimits,
    private readonly callbacks: FlowCallbacks,
  ) {}

  get isPending(): boolean {
    return this.pending !== null;
  }

  /** Live output: `frame` is the encoded `output` push, `bytes` the PTY bytes it carries. */
  deliverOutput(frame: Buffer, bytes: number): void {
    if (this.disposed) return;
    this.unacked += bytes;
    this.queue(frame, bytes);
    this.updateHolding();
  }

  /** Any other push for this attachment (e.g. `exit`): same order guarantees as output. */
  deliverPush(frame: Buffer): void {
    if (this.disposed) return;
    this.queue(frame, 0);
  }

  /** Sends what was held back during the attach; from now on output goes out directly. */
  flushPending(): void {
    if (this.disposed || !this.pending) return;
    const frames = this.pending;
    this.pending = null;
    this.pendingBytes = 0;
    for (const f of frames) this.sink.send(f);
    this.checkQueue();
  }

  ack(bytes: number): void {
    if (this.disposed) return;
    this.unacked = Math.max(0, this.unacked - bytes);
    this.updateHolding();
  }

  dispose(): void {
    this.disposed = true;
    this.pending = null;
    this.clearDemoteTimer();
    if (this.holding) {
      this.holding = false;
      this.callbacks.onHoldChanged();
    }
  }

  private queue(frame: Buffer, bytes: number): void {
    if (this.pending) {
      this.pending.push(frame);
      this.pendingBytes += bytes || frame.length;
      if (this.pendingBytes > this.limits.observerQueueLimit) this.callbacks.onSlowConsumer();
      return;
    }
    this.sink.send(frame);
    this.checkQueue();
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
