import { PENDING_REPORT_INTERVAL_MS } from '../constants.js';

/** One connection counted as pending: it leaves the count once it proves itself or closes. */
export interface PendingTicket {
  /** Proved itself (hello, the token) or closed: no longer counted, its deadline is off. */
  settle(): void;
  /** Its own protocol now bounds its time (hello's timer): only the count goes on. */
  clearDeadline(): void;
}

interface Entry extends PendingTicket {
  close(): void;
}

/**
 * Connections that have not proven themselves yet — no hello on a Unix socket, no token on
 * the web view's port — held to a count: when one more arrives at the cap, the one waiting
 * longest is closed to make room. Honest clients prove themselves within milliseconds of
 * connecting, so the longest waiting is the likeliest to be idle on purpose; a newcomer (the
 * user's `clippy ls`, a page load) gets in even while someone holds the cap, and whatever
 * anyone does the daemon holds at most `limit` such descriptors. Optionally each has a
 * deadline, past which it is closed the same way.
 */
export class PendingConnections {
  private readonly waiting = new Set<Entry>();
  private unreported = 0;
  private reportTimer: NodeJS.Timeout | null = null;

  /**
   * `report` hears how many were closed over the cap: at once for the first, then at most once
   * per PENDING_REPORT_INTERVAL_MS (a flood makes one log line per interval, not thousands).
   */
  constructor(
    readonly limit: number,
    private readonly report: (closedOverCap: number) => void,
  ) {}

  get size(): number {
    return this.waiting.size;
  }

  /**
   * Counts a new connection; `close` ends it (when it is pushed out by a newer one, or its
   * deadline passes). The caller settles the ticket when the connection proves itself or closes.
   */
  admit(close: () => void, deadlineMs: number | null = null): PendingTicket {
    while (this.waiting.size >= this.limit) {
      const oldest = this.waiting.values().next().value as Entry;
      oldest.settle();
      oldest.close();
      this.closedOverCap();
    }
    let timer: NodeJS.Timeout | null = null;
    const entry: Entry = {
      close,
      settle: () => {
        entry.clearDeadline();
        this.waiting.delete(entry);
      },
      clearDeadline: () => {
        if (timer) clearTimeout(timer);
        timer = null;
      },
    };
    this.waiting.add(entry);
    if (deadlineMs !== null) {
      timer = setTimeout(() => {
        timer = null;
        entry.settle();
        close();
      }, deadlineMs);
      timer.unref();
    }
    return entry;
  }

  private closedOverCap(): void {
    this.unreported++;
    if (!this.reportTimer) this.flushReport();
  }

  private flushReport(): void {
    if (this.unreported === 0) return;
    this.report(this.unreported);
    this.unreported = 0;
    this.reportTimer = setTimeout(() => {
      this.reportTimer = null;
      this.flushReport();
    }, PENDING_REPORT_INTERVAL_MS);
    this.reportTimer.unref();
  }

  /** Stops the deadlines and the report timer (the listener is closing). */
  dispose(): void {
    for (const entry of this.waiting) entry.clearDeadline();
    this.waiting.clear();
    if (this.reportTimer) clearTimeout(this.reportTimer);
    this.reportTimer = null;
  }
}
