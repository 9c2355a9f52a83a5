import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_HISTORY_MAX_AGE_DAYS, DEFAULT_HISTORY_MAX_BYTES } from '@clippy/protocol';
import type { Logger } from '../log.js';
import {
  RECORD_HEADER_BYTES,
  decodeRecordAt,
  encodeRecord,
  type ExitMeta,
  type RecordMeta,
  type SessionMeta,
  type TurnRecordMeta,
} from './record-format.js';
import { scanSegment } from './segment-scan.js';
import { SearchIndex } from './search-index.js';
import { SegmentWriter, segmentFileName, type Placement } from './segment-writer.js';
import { HistoryLock } from './history-lock.js';

/** Segment size at which a new segment begins: retention drops whole segments, so this is its step. */
export const SEGMENT_MAX_BYTES = 32 * 1024 * 1024;
/** Default size limit of the history (protocol's, beside the config schema): oldest segments go above it. */
export { DEFAULT_HISTORY_MAX_BYTES };
/** Default age limit of the history: a segment whose newest record is older goes. */
export const DEFAULT_HISTORY_MAX_AGE_MS = DEFAULT_HISTORY_MAX_AGE_DAYS * 24 * 60 * 60 * 1000;
/** How often retention runs besides after each new segment (an idle daemon still ages out). */
export const RETENTION_INTERVAL_MS = 10 * 60 * 1000;
/** Default and largest number of search results: enough to read, few enough to answer fast. */
export const DEFAULT_SEARCH_LIMIT = 20;
/** Matching lines shown per result, and their longest length: a result is a pointer, not the turn. */
const MAX_MATCH_LINES = 5;
const MAX_MATCH_LINE_CHARS = 400;
/** Candidate texts read at once by a search: enough to keep the thread pool busy, little memory. */
const SEARCH_READ_BATCH = 64;

const SEGMENT_FILE = /^(\d{6})\.seg$/;
/**
 * Turns indexed per step of the background indexing at start, between which the daemon serves
 * requests: a few milliseconds of work each.
 */
const INDEX_STEP_TURNS = 200;
/**
 * Text indexed per step for turns written while the daemon runs: a 4 MiB answer is split at
 * word boundaries into pieces of about this size, so indexing it never holds the event loop
 * (and the output it forwards) for more than a millisecond or two.
 */
const INDEX_STEP_CHARS = 64 * 1024;

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

/** A persisted turn read back whole. */
export interface ReadTurn {
  meta: TurnRecordMeta;
  content: Buffer;
  text: string;
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
}

export interface TurnStoreOptions {
  dir: string;
  log: Logger;
  maxBytes?: number;
  maxAgeMs?: number;
  /** Segment size (tests use small ones to see retention work). */
  segmentMaxBytes?: number;
}

export interface SearchHit {
  ref: TurnRef;
  meta: TurnRecordMeta;
  name: string;
  lines: string[];
}

interface SegmentInfo {
  size: number;
  /** Newest record time seen in it (epoch ms). */
  newest: number;
}

/**
 * The opt-in turn history: an append-only log of checksummed records in numbered segment files
 * under `$XDG_STATE_HOME/clippy/history` (0700, files 0600), an in-memory index of where each
 * persisted turn lies, and a full-text index. Opening scans every segment: damaged stretches are
 * moved to `damaged/` and the segment is rewritten with its sound records. Writes are queued and
 * done by a SegmentWriter (never on the output path); a failed write pauses persistence.
 */
export class TurnStore {
  readonly dir: string;
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  private readonly segmentMaxBytes: number;
  private readonly log: Logger;
  private readonly sessions = new Map<string, PersistedSession>();
  private readonly refs: (TurnRef | undefined)[] = [];
  private readonly index = new SearchIndex();
  private readonly segments = new Map<number, SegmentInfo>();
  private writer: SegmentWriter | null = null;
  private lastSegment = 0;
  private _warning: string | null = null;
  private retentionTimer: NodeJS.Timeout | null = null;
  private retentionRunning: Promise<void> | null = null;
  private closed = false;
  /**
   * Turns read at start are indexed in the background: ordinals below `indexedBelow` are, and
   * so are those from `loadedCount` on (appended since); searches scan the ones between.
   */
  private indexedBelow = 0;
  private loadedCount = 0;
  private indexing: Promise<void> | null = null;
  /** Turns written since start whose words are not indexed yet (searches scan them). */
  private readonly pendingIndex: { ordinal: number; text: string; at: number }[] = [];
  private readonly pendingOrdinals = new Set<number>();
  private pendingRunning = false;
  private lock: HistoryLock | null = null;

  private constructor(opts: TurnStoreOptions) {
    this.dir = opts.dir;
    this.log = opts.log;
    this.maxBytes = opts.maxBytes ?? DEFAULT_HISTORY_MAX_BYTES;
    this.maxAgeMs = opts.maxAgeMs ?? DEFAULT_HISTORY_MAX_AGE_MS;
    this.segmentMaxBytes = opts.segmentMaxBytes ?? SEGMENT_MAX_BYTES;
  }

  /**
   * Opens the history: reads what is there (nothing is created until something is persisted).
   * Damage never stops the open: it is moved aside, logged, and shown in `warning`.
   */
  static open(opts: TurnStoreOptions): TurnStore {
    const store = new TurnStore(opts);
    store.lock = HistoryLock.acquire(`${opts.dir}.lock`);
    try {
      store.load();
    } catch (err) {
      store.lock.release();
      throw err;
    }
    store.indexing = store.indexLoaded();
    store.retentionTimer = setInterval(() => void store.enforceRetention(), RETENTION_INTERVAL_MS);
    store.retentionTimer.unref();
    return store;
  }

  /** Why persistence is paused, or what was damaged at start; null when all is well. */
  get warning(): string | null {
    const paused = this.writer?.paused;
    if (paused) return `persistence paused: ${paused.message}`;
    return this._warning;
  }

  get paused(): boolean {
    return Boolean(this.writer?.paused);
  }

  /** Persisted sessions (removed ones excluded), in creation order. */
  persistedSessions(): PersistedSession[] {
    return [...this.sessions.values()].sort((a, b) => a.meta.created_at - b.meta.created_at);
  }

  session(id: string): PersistedSession | undefined {
    return this.sessions.get(id);
  }

  status() {
    let turns = 0;
    for (const s of this.sessions.values()) turns += s.turns.length;
    let bytes = 0;
    for (const seg of this.segments.values()) bytes += seg.size;
    return {
      dir: this.dir,
      paused: this.paused,
      warning: this.warning,
      sessions: this.sessions.size,
      turns,
      bytes,
      max_bytes: this.maxBytes,
      max_age_ms: this.maxAgeMs,
    };
  }

  // --- writing ---

  /** Starts persisting a session (its record first: turns follow it in the log). */
  persistSession(meta: Omit<SessionMeta, 'k'>): Promise<boolean> {
    const record: SessionMeta = { k: 'session', ...meta };
    this.sessions.set(meta.id, {
      meta: record,
      exit: null,
      exitAt: null,
      turns: [],
      segments: new Set(),
    });
    return this.append(record, []).then((at) => at !== null);
  }

  /** Appends a completed turn; resolves true once it is written (false: dropped, paused). */
  async persistTurn(turn: {
    session: string;
    seq: number;
    timestamp: number;
    interrupted: boolean;
    truncated: boolean;
    duration_ms: number;
    prompt: string;
    content: Uint8Array;
    text: string;
  }): Promise<boolean> {
    const textBytes = Buffer.from(turn.text);
    const meta: TurnRecordMeta = {
      k: 'turn',
      session: turn.session,
      seq: turn.seq,
      timestamp: turn.timestamp,
      interrupted: turn.interrupted,
      truncated: turn.truncated,
      duration_ms: turn.duration_ms,
      prompt: turn.prompt,
      cl: turn.content.length,
      tl: textBytes.length,
    };
    const at = await this.append(meta, [turn.content, textBytes], turn.text);
    return at !== null;
  }

  /** Records the end of a session's process and its final screen (for snapshots). */
  async persistExit(meta: Omit<ExitMeta, 'k' | 'sl'>, screen: string | null): Promise<void> {
    const blob = Buffer.from(screen ?? '');
    await this.append({ k: 'exit', ...meta, sl: blob.length }, [blob]);
  }

  /** Forgets a session (`clippy rm`): not restored or searched any more. */
  async persistRemove(session: string): Promise<void> {
    if (!this.sessions.has(session)) return;
    this.forget(session);
    await this.append({ k: 'remove', session, at: Date.now() }, []);
  }

  /** Waits for queued writes, forces them to disk and closes the files. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    this.retentionTimer = null;
    await this.retentionRunning;
    await this.indexing;
    await this.writer?.close();
    this.lock?.release();
  }

  dispose(): Promise<void> {
    return this.close();
  }

  // --- reading ---

  /** A persisted turn's exact bytes and text (checksum verified). */
  async readTurn(ref: TurnRef): Promise<ReadTurn> {
    const fh = await open(this.segmentPath(ref.segment), 'r');
    try {
      const buf = Buffer.alloc(ref.length);
      await fh.read(buf, 0, ref.length, ref.offset);
      return decodeTurn(buf);
    } finally {
      await fh.close();
    }
  }

  /** The same, synchronously (restoring rings at start, before the daemon listens). */
  readTurnSync(ref: TurnRef): ReadTurn {
    const fd = openSync(this.segmentPath(ref.segment), 'r');
    try {
      const buf = Buffer.alloc(ref.length);
      readSync(fd, buf, 0, ref.length, ref.offset);
      return decodeTurn(buf);
    } finally {
      closeSync(fd);
    }
  }

  /** The final screen recorded with a session's exit, or null. */
  async readExitScreen(session: PersistedSession): Promise<string | null> {
    const at = session.exitAt;
    if (!at || !session.exit || session.exit.sl === 0) return null;
    const fh = await open(this.segmentPath(at.segment), 'r');
    try {
      const buf = Buffer.alloc(session.exit.sl);
      await fh.read(buf, 0, buf.length, at.offset + at.length - session.exit.sl);
      return buf.toString('utf8');
    } finally {
      await fh.close();
    }
  }

  /**
   * Persisted turns whose text contains `query` (case-insensitive; found through the index,
   * so from the start of a word), newest first, with the matching lines.
   */
  async search(
    query: string,
    opts: { session?: string; since?: number; limit?: number } = {},
  ): Promise<SearchHit[]> {
    const limit = opts.limit ?? DEFAULT_SEARCH_LIMIT;
    const alive = (o: number) => this.refs[o] !== undefined;
    let candidates = this.index.candidates(query, alive);
    if (candidates === null) {
      candidates = [];
      for (let o = this.refs.length - 1; o >= 0; o--) if (this.refs[o]) candidates.push(o);
    } else if (this.indexedBelow < this.loadedCount || this.pendingOrdinals.size > 0) {
      // Turns not indexed yet (read at start, or just written) are all candidates.
      const merged = new Set(candidates);
      for (let o = this.indexedBelow; o < this.loadedCount; o++) if (this.refs[o]) merged.add(o);
      for (const o of this.pendingOrdinals) if (this.refs[o]) merged.add(o);
      candidates = [...merged].sort((a, b) => b - a);
    }
    const needle = query.toLowerCase();
    const hits: SearchHit[] = [];
    // One open per segment, shared by the concurrent reads (the promise, so none opens twice).
    const files = new Map<number, Promise<FileHandle>>();
    try {
      const wanted = candidates
        .map((o) => this.refs[o])
        .filter(
          (ref): ref is TurnRef =>
            ref !== undefined &&
            (opts.session === undefined || ref.meta.session === opts.session) &&
            (opts.since === undefined || ref.meta.timestamp >= opts.since),
        );
      const handle = (segment: number): Promise<FileHandle> => {
        let fh = files.get(segment);
        if (!fh) {
          fh = open(this.segmentPath(segment), 'r');
          files.set(segment, fh);
        }
        return fh;
      };
      // Candidates are read a batch at a time, concurrently (the thread pool reads in
      // parallel), newest first, until enough match.
      for (let i = 0; i < wanted.length && hits.length < limit; i += SEARCH_READ_BATCH) {
        const batch = wanted.slice(i, i + SEARCH_READ_BATCH);
        const texts = await Promise.all(
          batch.map(async (ref) => {
            const buf = Buffer.alloc(ref.meta.tl);
            await (await handle(ref.segment)).read(buf, 0, buf.length, ref.textAt);
            return buf.toString('utf8');
          }),
        );
        for (let k = 0; k < batch.length && hits.length < limit; k++) {
          const ref = batch[k]!;
          const text = texts[k]!;
          if (!text.toLowerCase().includes(needle)) continue;
          const session = this.sessions.get(ref.meta.session);
          // The whole record for a hit (a handful): its prompt and flags are not kept in memory.
          const { meta } = await this.readTurn(ref);
          hits.push({
            meta,
            ref,
            name: session?.meta.name ?? ref.meta.session,
            lines: matchLines(text, needle),
          });
        }
      }
    } finally {
      for (const fh of files.values()) await fh.then((f) => f.close()).catch(() => {});
    }
    return hits;
  }

  /** Distinct words in the search index. */
  get indexedWords(): number {
    return this.index.words;
  }

  /** Resolves once every turn is in the search index (benchmarks, tests). */
  async indexed(): Promise<void> {
    await this.indexing;
    while (this.pendingRunning) await new Promise((r) => setImmediate(r));
  }

  /** Indexes a just-written turn's words in the background, a piece per event-loop turn. */
  private queueIndex(ordinal: number, text: string): void {
    this.pendingIndex.push({ ordinal, text, at: 0 });
    this.pendingOrdinals.add(ordinal);
    if (this.pendingRunning) return;
    this.pendingRunning = true;
    const step = () => {
      const job = this.pendingIndex[0];
      if (!job || this.closed) {
        this.pendingRunning = false;
        return;
      }
      let end = Math.min(job.text.length, job.at + INDEX_STEP_CHARS);
      // Cut after a non-word character so that no word is split between two pieces.
      while (end < job.text.length && /[\p{L}\p{N}_]/u.test(job.text[end - 1]!)) end++;
      this.index.add(job.ordinal, job.text.slice(job.at, end));
      job.at = end;
      if (job.at >= job.text.length) {
        this.pendingIndex.shift();
        this.pendingOrdinals.delete(job.ordinal);
      }
      setImmediate(step);
    };
    setImmediate(step);
  }

  /**
   * Indexes the turns read at start, segment by segment (one async read each), a few hundred
   * turns per step with a yield between steps: opening stays a scan, and the daemon answers
   * while the index fills.
   */
  private async indexLoaded(): Promise<void> {
    let o = 0;
    while (o < this.loadedCount && !this.closed) {
      const first = this.refs[o];
      if (!first) {
        o++;
        this.indexedBelow = o;
        continue;
      }
      let buf: Buffer;
      try {
        buf = await readFile(this.segmentPath(first.segment));
      } catch {
        buf = Buffer.alloc(0); // dropped by retention meanwhile: nothing left to index
      }
      const segment = first.segment;
      let step = 0;
      for (; o < this.loadedCount && !this.closed; o++) {
        const ref = this.refs[o];
        if (ref && ref.segment !== segment) break;
        if (ref && ref.textAt + ref.meta.tl <= buf.length)
          this.index.add(o, buf.toString('utf8', ref.textAt, ref.textAt + ref.meta.tl));
        this.indexedBelow = o + 1;
        if (++step >= INDEX_STEP_TURNS) {
          step = 0;
          await new Promise((r) => setImmediate(r));
        }
      }
    }
  }

  // --- retention ---

  /**
   * Drops whole segments, oldest first, while the history is above its size limit, and every
   * closed segment whose newest record is past the age limit. Runs in the background: file
   * removal is async and the index update is proportional to the turns dropped.
   */
  enforceRetention(now = Date.now()): Promise<void> {
    this.retentionRunning ??= this.runRetention(now).finally(() => {
      this.retentionRunning = null;
    });
    return this.retentionRunning;
  }

  private async runRetention(now: number): Promise<void> {
    const current = this.writer?.segment ?? this.lastSegment;
    const numbers = [...this.segments.keys()].sort((a, b) => a - b);
    let total = 0;
    for (const n of numbers) total += this.segments.get(n)!.size;
    for (const n of numbers) {
      if (n === current) break;
      const seg = this.segments.get(n)!;
      const tooBig = total > this.maxBytes;
      const tooOld = now - seg.newest > this.maxAgeMs;
      if (!tooBig && !tooOld) continue;
      await this.carryForward(n);
      this.dropSegment(n);
      total -= seg.size;
      await unlink(this.segmentPath(n)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT')
          this.log.warn({ err, segment: n }, 'history: could not remove a segment');
      });
      this.log.info(
        { segment: n, reason: tooBig ? 'size' : 'age' },
        'history: dropped the oldest segment (retention)',
      );
    }
  }

  /** Sessions that keep turns beyond segment `n` get their session/exit records rewritten first. */
  private async carryForward(n: number): Promise<void> {
    for (const s of [...this.sessions.values()]) {
      if (!s.turns.some((t) => t.segment !== n)) continue;
      if (s.metaSegment === n) await this.append(s.meta, []);
      if (s.exit && s.exitAt?.segment === n) {
        const screen = await this.readExitScreen(s).catch(() => null);
        const { k: _k, sl: _sl, ...exit } = s.exit;
        await this.persistExit(exit, screen);
      }
    }
  }

  private dropSegment(n: number): void {
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

  // --- internals ---

  private segmentPath(n: number): string {
    return join(this.dir, segmentFileName(n));
  }

  private forget(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    for (const t of s.turns) this.refs[t.ordinal] = undefined;
    this.sessions.delete(id);
  }

  private ensureWriter(): SegmentWriter {
    if (this.writer) return this.writer;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const last = this.lastSegment;
    const lastInfo = this.segments.get(last);
    const start = lastInfo && lastInfo.size < this.segmentMaxBytes ? last : last + 1;
    this.writer = new SegmentWriter(
      this.dir,
      start,
      lastInfo && start === last ? lastInfo.size : 0,
      {
        paused: (err) =>
          this.log.warn(
            { err, dir: this.dir },
            'history: a write failed (disk full?): persistence paused, sessions go on',
          ),
        resumed: () => this.log.info('history: trying to write again'),
      },
    );
    return this.writer;
  }

  private async append(
    meta: RecordMeta,
    blobs: Uint8Array[],
    text?: string,
  ): Promise<Placement | null> {
    if (this.closed) return null;
    let writer: SegmentWriter;
    try {
      writer = this.ensureWriter();
    } catch (err) {
      this._warning = `history unavailable: ${(err as Error).message}`;
      this.log.warn({ err, dir: this.dir }, 'history: cannot create its directory');
      return null;
    }
    const buf = encodeRecord(meta, blobs);
    if (writer.queuedEnd > 0 && writer.queuedEnd + buf.length > this.segmentMaxBytes) {
      writer.rotate();
      // Retention after the new segment exists (it never drops the segment being written).
      queueMicrotask(() => void this.enforceRetention());
    }
    const at = await writer.append(buf);
    if (!at) return null;
    this.apply(
      meta,
      at,
      buf.length,
      RECORD_HEADER_BYTES + 4 + buf.readUInt32BE(RECORD_HEADER_BYTES),
      text,
    );
    return at;
  }

  /** Adds a sound record (read at start, or just written) to the in-memory index. */
  private apply(
    meta: RecordMeta,
    at: Placement,
    length: number,
    blobsRel: number,
    text?: string,
  ): void {
    const seg = this.segments.get(at.segment) ?? { size: 0, newest: 0 };
    seg.size = Math.max(seg.size, at.offset + length);
    this.segments.set(at.segment, seg);
    if (at.segment > this.lastSegment) this.lastSegment = at.segment;
    switch (meta.k) {
      case 'session': {
        seg.newest = Math.max(seg.newest, meta.created_at);
        const s = this.sessions.get(meta.id);
        if (s) {
          s.meta = meta;
          s.segments.add(at.segment);
          s.metaSegment = at.segment;
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
        return;
      }
      case 'turn': {
        seg.newest = Math.max(seg.newest, meta.timestamp);
        const s = this.sessions.get(meta.session);
        if (!s) return; // its session was removed (or its record lost with damage)
        const last = s.turns.at(-1);
        if (last && last.meta.seq >= meta.seq) return;
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
        if (text !== undefined) this.queueIndex(ref.ordinal, text);
        return;
      }
      case 'exit': {
        seg.newest = Math.max(seg.newest, meta.exited_at);
        const s = this.sessions.get(meta.session);
        if (!s) return;
        s.exit = meta;
        s.exitAt = { ...at, length };
        s.segments.add(at.segment);
        return;
      }
      case 'remove':
        seg.newest = Math.max(seg.newest, meta.at);
        this.removed.add(meta.session);
        this.forget(meta.session);
        return;
    }
  }

  private readonly removed = new Set<string>();

  /** Reads every segment in order, moving damaged stretches aside. */
  private load(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    if ((lstatSync(this.dir).mode & 0o777) !== 0o700) chmodSync(this.dir, 0o700);
    const numbers = names
      .map((n) => SEGMENT_FILE.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const damage: string[] = [];
    for (const n of numbers) {
      let buf = readFileSync(this.segmentPath(n));
      let scan = scanSegment(buf);
      if (scan.damaged.length > 0) {
        const moved = this.moveAside(n, buf, scan);
        damage.push(moved);
        buf = readFileSync(this.segmentPath(n));
        scan = scanSegment(buf);
      }
      this.segments.set(n, { size: buf.length, newest: 0 });
      if (n > this.lastSegment) this.lastSegment = n;
      // The search index is filled in the background (indexLoaded): opening only scans.
      for (const r of scan.records)
        this.apply(r.meta, { segment: n, offset: r.offset }, r.length, r.blobsAt - r.offset);
    }
    this.loadedCount = this.refs.length;
    if (damage.length > 0) {
      this._warning = `damaged history found at start: ${damage.join('; ')}`;
      this.log.warn({ dir: this.dir, damage }, 'history: damaged records moved aside');
    }
  }

  /**
   * Copies each damaged stretch of segment `n` into `damaged/`, then rewrites the segment with
   * its sound records only (written beside it, synced, renamed over it: a crash here loses
   * nothing). Returns what it did, for the log.
   */
  private moveAside(n: number, buf: Buffer, scan: ReturnType<typeof scanSegment>): string {
    const aside = join(this.dir, 'damaged');
    mkdirSync(aside, { recursive: true, mode: 0o700 });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    let bytes = 0;
    for (const d of scan.damaged) {
      const file = join(aside, `${segmentFileName(n)}.${d.start}-${d.end}.${stamp}.bad`);
      writeFileSync(file, buf.subarray(d.start, d.end), { mode: 0o600 });
      bytes += d.end - d.start;
    }
    const sound = Buffer.concat(
      scan.records.map((r) => buf.subarray(r.offset, r.offset + r.length)),
    );
    const tmp = `${this.segmentPath(n)}.rewrite`;
    writeFileSync(tmp, sound, { mode: 0o600 });
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.segmentPath(n));
    const faults = [...new Set(scan.damaged.map((d) => d.fault))].join(', ');
    return `${segmentFileName(n)}: ${bytes} bytes (${faults}) moved to ${aside}, ${scan.records.length} records kept`;
  }
}

function decodeTurn(buf: Buffer): ReadTurn {
  const r = decodeRecordAt(buf, 0);
  if (typeof r === 'string' || r.meta.k !== 'turn')
    throw new Error(`stored turn unreadable (${typeof r === 'string' ? r : r.meta.k})`);
  return {
    meta: r.meta,
    content: Buffer.from(buf.subarray(r.blobsAt, r.blobsAt + r.meta.cl)),
    text: buf.toString('utf8', r.blobsAt + r.meta.cl, r.blobsAt + r.meta.cl + r.meta.tl),
  };
}

/** The lines of `text` holding `needle` (lower-cased), a few, each cut to a readable length. */
function matchLines(text: string, needle: string): string[] {
  const out: string[] = [];
  const first = needle.split('\n')[0]!;
  for (const line of text.split('\n')) {
    if (!line.toLowerCase().includes(first)) continue;
    out.push(
      line.length > MAX_MATCH_LINE_CHARS ? `${line.slice(0, MAX_MATCH_LINE_CHARS - 1)}…` : line,
    );
    if (out.length >= MAX_MATCH_LINES) break;
  }
  return out;
}
