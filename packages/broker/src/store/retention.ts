import { DEFAULT_HISTORY_MAX_AGE_DAYS } from '@clippy/protocol';
import type { Logger } from '../log.js';
import type { HistoryIndex, PersistedSession } from './history-index.js';

/** Default age limit of the history: a segment whose newest record is older goes. */
export const DEFAULT_HISTORY_MAX_AGE_MS = DEFAULT_HISTORY_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;
/** How often retention runs besides after each new segment (an idle daemon still ages out). */
export const RETENTION_INTERVAL_MS = 10 * 60 * 1000;

/** What retention needs of the store. */
export interface RetentionHost {
  readonly index: HistoryIndex;
  readonly log: Logger;
  /** The segment being written (never dropped). */
  currentSegment(): number;
  /** Writes a session's record, or its exit record, again into the current segment. */
  carryMeta(session: PersistedSession): Promise<void>;
  carryExit(session: PersistedSession): Promise<void>;
  /** Removes a segment's files. */
  removeFiles(segment: number): Promise<void>;
}

/**
 * Drops whole segments, oldest first, while the history is above its size limit, and every
 * closed segment whose newest record is past the age limit. Runs in the background: file
 * removal is async and the index update is proportional to the turns dropped. A session that
 * keeps turns in later segments gets its session and exit records rewritten first.
 */
export class Retention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly host: RetentionHost,
    readonly maxBytes: number,
    readonly maxAgeMs: number,
  ) {}

  /** Runs every RETENTION_INTERVAL_MS from now on. */
  start(): void {
    this.timer = setInterval(() => void this.enforce(), RETENTION_INTERVAL_MS);
    this.timer.unref();
  }

  /** One pass (joins the one running). */
  enforce(now = Date.now()): Promise<void> {
    this.running ??= this.run(now).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async run(now: number): Promise<void> {
    const { index, log } = this.host;
    const current = this.host.currentSegment();
    const numbers = [...index.segments.keys()].sort((a, b) => a - b);
    let total = index.bytes;
    for (const n of numbers) {
      if (n === current) break;
      const seg = index.segments.get(n)!;
      const tooBig = total > this.maxBytes;
      const tooOld = now - seg.newest > this.maxAgeMs;
      if (!tooBig && !tooOld) continue;
      await this.carryForward(n);
      index.dropSegment(n);
      total -= seg.size;
      await this.host.removeFiles(n);
      log.info(
        { segment: n, reason: tooBig ? 'size' : 'age' },
        'history: dropped the oldest segment (retention)',
      );
    }
  }

  /** Sessions that keep turns beyond segment `n` get their session/exit records rewritten first. */
  private async carryForward(n: number): Promise<void> {
    for (const s of [...this.host.index.sessions.values()]) {
      if (!s.turns.some((t) => t.segment !== n)) continue;
      if (s.metaSegment === n) await this.host.carryMeta(s);
      if (s.exit && s.exitAt?.segment === n) await this.host.carryExit(s);
    }
  }
}
