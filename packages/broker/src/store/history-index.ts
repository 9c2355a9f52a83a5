import type { SegmentKey } from './record-format.js';
import {
  rebuiltSession,
  type ExitMeta,
  type OtherMeta,
  type RecordMeta,
  type SessionMeta,
} from './record-meta.js';
import type { Placement } from './segment-writer.js';

/**
 * A persisted turn as the index holds it: where it lies and what filters need. Everything else
 * (prompt, flags, the bytes) stays on disk: memory per turn is a few dozen bytes, not the
 * record's meta.
 */
export interface TurnRef {
  ordinal: number;
  segment: number;
  offset: number;
  length: number;
  /** Offset of the text blob in the segment. */
  textAt: number;
  meta: { session: string; seq: number; timestamp: number; tl: number };
}

export interface PersistedSession {
  meta: SessionMeta;
  exit: ExitMeta | null;
  exitAt: (Placement & { length: number }) | null;
  /** Ascending seq. */
  turns: TurnRef[];
  /** Segments holding any record of it (it goes when none is left). */
  segments: Set<number>;
  /** Segment of its newest session record (carried forward before that segment is dropped). */
  metaSegment?: number;
  /** Its own record was lost: `meta` is rebuilt from its turns and exit. */
  rebuilt?: boolean;
}

export interface SegmentInfo {
  size: number;
  /** Newest record time seen in it (epoch ms). */
  newest: number;
  /** 2: keyed records; 1: the first format, read in place and never appended to. */
  format: 1 | 2;
  key: SegmentKey | null;
}

/**
 * What the history holds, in memory: each persisted session with where its turns lie, the
 * segments, and the sessions removed. Records are applied in log order, as read at start or as
 * written. A turn or exit whose session record was lost (damage) still counts: the session is
 * rebuilt from what survives, named by its ID, until a record of its own turns up.
 */
export class HistoryIndex {
  readonly sessions = new Map<string, PersistedSession>();
  /** Every turn by ordinal (the search index's numbering); dropped ones are undefined. */
  readonly refs: (TurnRef | undefined)[] = [];
  readonly segments = new Map<number, SegmentInfo>();
  lastSegment = 0;
  private readonly removed = new Set<string>();

  /** Oldest first. */
  persistedSessions(): PersistedSession[] {
    return [...this.sessions.values()].sort((a, b) => a.meta.created_at - b.meta.created_at);
  }

  get turnCount(): number {
    let turns = 0;
    for (const s of this.sessions.values()) turns += s.turns.length;
    return turns;
  }

  get bytes(): number {
    let bytes = 0;
    for (const seg of this.segments.values()) bytes += seg.size;
    return bytes;
  }

  /** A segment begins (read at start, or keyed by the writer). */
  addSegment(n: number, info: SegmentInfo): void {
    this.segments.set(n, info);
    if (n > this.lastSegment) this.lastSegment = n;
  }

  /** A session starts being persisted: known before its record is written. */
  begin(meta: SessionMeta): void {
    this.sessions.set(meta.id, {
      meta,
      exit: null,
      exitAt: null,
      turns: [],
      segments: new Set(),
    });
  }

  /**
   * Adds a sound record at `at` (`length` bytes, its blobs `blobsRel` bytes in). Returns the
   * ref of a turn it added (to index its words), else null.
   */
  apply(
    meta: RecordMeta | OtherMeta,
    at: Placement,
    length: number,
    blobsRel: number,
  ): TurnRef | null {
    const seg = this.segments.get(at.segment);
    if (!seg) throw new Error(`history: a record in unknown segment ${at.segment}`);
    seg.size = Math.max(seg.size, at.offset + length);
    switch (meta.k) {
      case 'session': {
        seg.newest = Math.max(seg.newest, meta.created_at);
        const s = this.sessions.get(meta.id);
        if (s) {
          const known = s.meta.created_at;
          s.meta = meta.created_at === 0 && known !== 0 ? { ...meta, created_at: known } : meta;
          s.segments.add(at.segment);
          s.metaSegment = at.segment;
          s.rebuilt = false;
        } else if (!this.removed.has(meta.id)) {
          this.sessions.set(meta.id, {
            meta,
            exit: null,
            exitAt: null,
            turns: [],
            segments: new Set([at.segment]),
            metaSegment: at.segment,
          });
        }
        return null;
      }
      case 'turn': {
        seg.newest = Math.max(seg.newest, meta.timestamp);
        const s = this.sessionOf(meta.session, meta.timestamp);
        if (!s) return null; // removed
        const last = s.turns.at(-1);
        if (last && last.meta.seq >= meta.seq) return null;
        if (s.meta.created_at === 0) s.meta = { ...s.meta, created_at: meta.timestamp };
        const ref: TurnRef = {
          ordinal: this.refs.length,
          segment: at.segment,
          offset: at.offset,
          length,
          textAt: at.offset + blobsRel + meta.cl,
          // The session's own ID string: one copy, not one per turn.
          meta: { session: s.meta.id, seq: meta.seq, timestamp: meta.timestamp, tl: meta.tl },
        };
        this.refs.push(ref);
        s.turns.push(ref);
        s.segments.add(at.segment);
        return ref;
      }
      case 'exit': {
        seg.newest = Math.max(seg.newest, meta.exited_at);
        const s = this.sessionOf(meta.session, meta.exited_at);
        if (!s) return null;
        if (s.rebuilt) s.meta = { ...s.meta, cols: meta.cols, rows: meta.rows };
        s.exit = meta;
        s.exitAt = { ...at, length };
        s.segments.add(at.segment);
        return null;
      }
      case 'remove':
        seg.newest = Math.max(seg.newest, meta.at);
        this.removed.add(meta.session);
        this.forget(meta.session);
        return null;
      case 'other':
        return null;
    }
  }

  /** Forgets a session and its turns (removed, or `clippy rm`). */
  forget(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    for (const t of s.turns) this.refs[t.ordinal] = undefined;
    this.sessions.delete(id);
  }

  /** Segment `n` is gone (retention): its turns with it, and sessions left with nothing. */
  dropSegment(n: number): void {
    this.segments.delete(n);
    for (const [id, s] of this.sessions) {
      if (!s.segments.delete(n)) continue;
      const keep: TurnRef[] = [];
      for (const t of s.turns) {
        if (t.segment === n) this.refs[t.ordinal] = undefined;
        else keep.push(t);
      }
      s.turns = keep;
      if (s.exitAt?.segment === n) s.exitAt = null;
      if (s.segments.size === 0) this.sessions.delete(id);
    }
  }

  /** The session a turn or exit belongs to; rebuilt when its record was lost, none when removed. */
  private sessionOf(id: string, seenAt: number): PersistedSession | undefined {
    const s = this.sessions.get(id);
    if (s || this.removed.has(id)) return s;
    const rebuilt: PersistedSession = {
      meta: rebuiltSession(id, seenAt),
      exit: null,
      exitAt: null,
      turns: [],
      segments: new Set(),
      rebuilt: true,
    };
    this.sessions.set(id, rebuilt);
    return rebuilt;
  }
}
