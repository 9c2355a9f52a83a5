import { INBOX_TURN_BUDGET_MS } from '../constants.js';
import type { StreamFailure } from './partial-frames.js';

type Item = { message: unknown } | { failure: StreamFailure };

export interface InboxHandler {
  message(message: unknown): void;
  failure(failure: StreamFailure): void;
  /** Stop reading from the peer: a backlog is waiting. */
  pause(): void;
  /** The backlog is handled: read again. */
  resume(): void;
}

/**
 * What one connection received and has not had handled yet. At most `perTurn` items are handled
 * per turn of the event loop, and no more once `budgetMs` went by (one costly request — a spawn
 * forks a process — counts for many cheap ones); the rest wait for the next turn (setImmediate,
 * after the other connections' and the PTYs' I/O) with the peer's reading paused, so one
 * client's pipelined flood cannot hold everyone else's requests and live output back.
 */
export class FairInbox {
  private items: Item[] = [];
  private head = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private paused = false;
  private disposed = false;

  constructor(
    private readonly perTurn: number,
    private readonly sink: InboxHandler,
    private readonly budgetMs = INBOX_TURN_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Messages in the order they arrived; handled now, up to the per-turn bound. */
  push(messages: readonly unknown[]): void {
    for (const message of messages) this.items.push({ message });
    this.kick();
  }

  /** A failure of the byte stream, handled after everything that arrived before it. */
  fail(failure: StreamFailure): void {
    this.items.push({ failure });
    this.kick();
  }

  dispose(): void {
    this.disposed = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.items = [];
    this.head = 0;
  }

  private kick(): void {
    if (!this.scheduled && !this.disposed) this.drain();
  }

  private readonly drain = (): void => {
    this.scheduled = null;
    let handled = 0;
    const start = this.now();
    while (
      this.head < this.items.length &&
      handled < this.perTurn &&
      (handled === 0 || this.now() - start < this.budgetMs) &&
      !this.disposed
    ) {
      const item = this.items[this.head]!;
      this.items[this.head++] = undefined as unknown as Item;
      handled++;
      if ('failure' in item) {
        this.sink.failure(item.failure);
        // Nothing after a failure is handled: the connection closes.
        this.dispose();
        return;
      }
      this.sink.message(item.message);
    }
    if (this.disposed) return;
    if (this.head < this.items.length) {
      if (!this.paused) {
        this.paused = true;
        this.sink.pause();
      }
      this.scheduled = setImmediate(this.drain);
      return;
    }
    this.items = [];
    this.head = 0;
    if (this.paused) {
      this.paused = false;
      this.sink.resume();
    }
  };
}
