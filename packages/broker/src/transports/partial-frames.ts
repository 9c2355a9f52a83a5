import type { ErrorCode } from '@clippy/protocol';

/** Why a connection's byte stream is refused; the connection answers with it and closes. */
export interface StreamFailure {
  code: ErrorCode;
  message: string;
}

/**
 * The bytes all connections hold in unfinished frames, against one total: a frame may be up to
 * 16 MiB, and without a shared bound a few connections that never finish theirs hold that much
 * each, for ever.
 */
export class PartialFrameBudget {
  private total = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.total;
  }

  /** Takes `bytes` more if the total stays within the limit; false (nothing taken) otherwise. */
  take(bytes: number): boolean {
    if (this.total + bytes > this.limit) return false;
    this.total += bytes;
    return true;
  }

  give(bytes: number): void {
    this.total = Math.max(0, this.total - bytes);
  }
}

/**
 * One connection's unfinished frame: its bytes count against the shared budget, and it must be
 * finished within the frame timeout (counted from the read that started it). Transports call
 * `update` after every read; `fail` is called at most once.
 */
export class PartialFrameGuard {
  private held = 0;
  private timer: NodeJS.Timeout | null = null;
  private failed = false;

  constructor(
    private readonly budget: PartialFrameBudget,
    private readonly timeoutMs: number,
    private readonly fail: (failure: StreamFailure) => void,
  ) {}

  /**
   * `pending`: bytes now held for the unfinished frame (0: none); `completed`: whether a frame
   * was finished by this read (so what is pending now is a new frame, with a fresh timeout).
   */
  update(pending: number, completed: boolean): void {
    if (this.failed) return;
    if (pending > this.held) {
      const needed = pending - this.held;
      if (!this.budget.take(needed)) {
        this.stop({
          code: 'partial_frame_limit',
          message:
            `unfinished frames of all connections would hold more than ${this.budget.limit} bytes ` +
            `(this connection's: ${pending}); finish frames promptly, or retry when the broker is less loaded`,
        });
        return;
      }
    } else {
      this.budget.give(this.held - pending);
    }
    this.held = pending;
    if (pending === 0) {
      this.clearTimer();
    } else if (completed || !this.timer) {
      this.clearTimer();
      this.timer = setTimeout(
        () =>
          this.stop({
            code: 'frame_timeout',
            message: `a frame was not finished within ${this.timeoutMs} ms of its first byte (${this.held} bytes received)`,
          }),
        this.timeoutMs,
      );
      this.timer.unref();
    }
  }

  /** The connection is gone: its bytes go back to the budget. */
  dispose(): void {
    this.failed = true;
    this.clearTimer();
    this.budget.give(this.held);
    this.held = 0;
  }

  private stop(failure: StreamFailure): void {
    this.dispose();
    this.fail(failure);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
