import type { StorePause } from '@clippy/protocol';

/**
 * The latest time persistence paused (a full disk, a write error), kept after it resumes: turns
 * completed while it was paused are never written afterwards, and a user who looks at
 * `daemon status` later must still learn that, and how many.
 */
export class PauseRecord {
  private latest: StorePause | null = null;

  /** A write failed: a new pause begins (the turns of the failed write count in it). */
  began(err: Error, now = Date.now()): void {
    this.latest = { since: now, until: null, reason: err.message, turns_not_written: 0 };
  }

  /** Writing is tried again. */
  ended(now = Date.now()): void {
    if (this.latest && this.latest.until === null) this.latest.until = now;
  }

  /** A turn was dropped because of the current pause. */
  turnNotWritten(): void {
    if (this.latest && this.latest.until === null) this.latest.turns_not_written++;
  }

  get last(): StorePause | null {
    return this.latest ? { ...this.latest } : null;
  }
}
