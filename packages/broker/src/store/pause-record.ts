import type { StorePause } from '@clippy/protocol';

/**
 * The latest time persistence paused (a full disk, a write error), kept after it resumes: turns
 * completed while it was paused are never written afterwards, and a user who looks at
 * `daemon status` later must still learn that, and how many. A disk that stays full fails again
 * at every retry: those pauses are one, from the first failure to the last, until a turn is
 * written again.
 */
export class PauseRecord {
  private latest: StorePause | null = null;
  /** A turn was written since the latest pause ended: the next failure is a new pause. */
  private writtenSince = false;

  /** A write failed: a pause begins, or the one before goes on (the failed turns count in it). */
  began(err: Error, now = Date.now()): void {
    if (this.latest && this.latest.until !== null && !this.writtenSince) {
      this.latest.until = null;
      this.latest.reason = err.message;
      return;
    }
    this.latest = { since: now, until: null, reason: err.message, turns_not_written: 0 };
  }

  /** Writing is tried again. */
  ended(now = Date.now()): void {
    if (this.latest && this.latest.until === null) {
      this.latest.until = now;
      this.writtenSince = false;
    }
  }

  /** A turn was written. */
  turnWritten(): void {
    if (this.latest && this.latest.until !== null) this.writtenSince = true;
  }

  /** A turn was dropped because of the current pause. */
  turnNotWritten(): void {
    if (this.latest && this.latest.until === null) this.latest.turns_not_written++;
  }

  get last(): StorePause | null {
    return this.latest ? { ...this.latest } : null;
  }
}
