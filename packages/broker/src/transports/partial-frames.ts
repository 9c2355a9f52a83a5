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
 * `update` after every read; `fail` is called at most once. While the daemon itself does not
 * read the connection (`pause`: a backlog of its requests waits), the time does not run: the
 * rest of the frame may be waiting in the daemon's own socket buffer; reading again (`resume`)
 * gives it a whole timeout.
 */
export class PartialFrameGuard {
  private held = 0;
  private timer: NodeJS.Timeout | null = null;
  private failed = false;
  private paused = false;

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
      this.startTimer();
    }
  }

  /** The daemon stops reading the connection: the unfinished frame's time stops too. */
  pause(): void {
    this.paused = true;
    this.clearTimer();
  }

  /** The daemon reads again: an unfinished frame gets a whole timeout from now. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.held > 0 && !this.failed && !this.timer) this.startTimer();
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

  private startTimer(): void {
    if (this.paused) return;
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

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
