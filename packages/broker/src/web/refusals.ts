/**
 * Least time between two log lines about refused web view requests: a flood of thousands a
 * second (any local user can send them) leaves one line per interval, with the counts.
 */
export const REFUSAL_REPORT_INTERVAL_MS = 10_000;
/** Wrong credentials a source may show before its refusals wait: a stale tab, a typo or two. */
const FREE_GUESSES = 3;
/** The first wait past the free guesses; each later wrong one from the source waits twice as long. */
const FIRST_WAIT_MS = 250;
/** The longest a refusal waits: a person who mistyped is not locked out for long. */
const MAX_WAIT_MS = 8_000;
/** A source with no wrong credential this long starts again from nothing. */
const FORGET_MS = 60_000;
/**
 * Sources remembered at most: a local user can send from any of 127/8's addresses; past this
 * many, new ones share one count (so many addresses wait as one hot source does).
 */
const SOURCES_KEPT = 1024;
/** The key shared by the sources past SOURCES_KEPT. */
const OVERFLOW = '*';

interface Source {
  wrong: number;
  last: number;
}

/** What one log line says of the refusals it sums up. */
export interface RefusalSummary {
  refused: number;
  /** How many of each reason. */
  reasons: Record<string, number>;
  /** Of them, wrong credentials (a wrong token, an unknown tab session). */
  wrong_credentials: number;
  /** From how many sources (remote addresses). */
  sources: number;
}

/**
 * The web view's refused requests, counted and logged in summary: the first at once (with its
 * reason), the rest at most once per REFUSAL_REPORT_INTERVAL_MS with their counts, so a flood
 * of refusals never floods the log (nor rotates the lines before it away). Wrong credentials
 * from one source wait before they are answered, longer each time (FREE_GUESSES answered at
 * once, then FIRST_WAIT_MS doubling up to MAX_WAIT_MS): guessing costs the guesser time, while
 * a right token from the same source is answered at once.
 */
export class WebRefusals {
  private readonly sources = new Map<string, Source>();
  private pending: RefusalSummary | null = null;
  private pendingSources = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly report: (summary: RefusalSummary, first: boolean) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A refused request from `source` (its remote address): counted, and how long its answer is
   * held (ms); `credential` says it showed a wrong token or tab session.
   */
  refused(reason: string, source: string, credential: boolean): number {
    const wait = credential ? this.waitFor(source) : 0;
    const one: RefusalSummary = {
      refused: 1,
      reasons: { [reason]: 1 },
      wrong_credentials: credential ? 1 : 0,
      sources: 1,
    };
    if (!this.timer) {
      this.report(one, true);
      this.startInterval();
      return wait;
    }
    const p = (this.pending ??= { refused: 0, reasons: {}, wrong_credentials: 0, sources: 0 });
    p.refused++;
    p.reasons[reason] = (p.reasons[reason] ?? 0) + 1;
    p.wrong_credentials += one.wrong_credentials;
    this.pendingSources.add(source);
    p.sources = this.pendingSources.size;
    return wait;
  }

  /** The refusals not yet reported are reported now; no timer is left. */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flush();
  }

  private startInterval(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.flush()) this.startInterval();
    }, REFUSAL_REPORT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Reports what was counted; false when there was nothing. */
  private flush(): boolean {
    const p = this.pending;
    this.pending = null;
    this.pendingSources = new Set();
    this.forgetOld();
    if (!p) return false;
    this.report(p, false);
    return true;
  }

  private waitFor(address: string): number {
    const now = this.now();
    let key = address;
    if (!this.sources.has(key) && this.sources.size >= SOURCES_KEPT) {
      this.forgetOld();
      if (this.sources.size >= SOURCES_KEPT) key = OVERFLOW;
    }
    let s = this.sources.get(key);
    if (!s || now - s.last > FORGET_MS) {
      s = { wrong: 0, last: now };
      this.sources.set(key, s);
    }
    s.wrong++;
    s.last = now;
    if (s.wrong <= FREE_GUESSES) return 0;
    return Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** (s.wrong - FREE_GUESSES - 1));
  }

  private forgetOld(): void {
    const now = this.now();
    for (const [key, s] of this.sources) if (now - s.last > FORGET_MS) this.sources.delete(key);
  }
}
