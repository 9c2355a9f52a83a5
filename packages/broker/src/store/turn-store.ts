import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_HISTORY_MAX_BYTES } from '@clippy/protocol';
import type { AgentTurn } from '@clippy/protocol';
import type { Logger } from '../log.js';
import { ownFolder } from '../own-files.js';
import type { SessionUsage } from '../turn-ring/turn-ring.js';
import { HistoryIndex, type PersistedSession, type TurnRef } from './history-index.js';
import { HistoryLock, type LockOptions } from './history-lock.js';
import { blobsOffset, encodeRecord } from './record-format.js';
import type { ExitMeta, RecordMeta, SessionMeta, TurnRecordMeta } from './record-meta.js';
import { PauseRecord } from './pause-record.js';
import { readHistory } from './recovery.js';
import { DEFAULT_HISTORY_MAX_AGE_MS, Retention } from './retention.js';
import { keyFileName, segmentFileName } from './segment-file.js';
import { SegmentReader, type ReadTurn } from './segment-reader.js';
import { SegmentWriter, type Placement } from './segment-writer.js';
import { TurnSearch, type SearchHit } from './turn-search.js';

export type { PersistedSession, TurnRef } from './history-index.js';
export type { SearchHit } from './turn-search.js';

/** Segment size at which a new segment begins: retention drops whole segments, so this is its step. */
export const SEGMENT_MAX_BYTES = 32 * 1024 * 1024;

export interface TurnStoreOptions {
  dir: string;
  log: Logger;
  maxBytes?: number;
  maxAgeMs?: number;
  /** Segment size (tests use small ones to see retention work). */
  segmentMaxBytes?: number;
  /** How long to wait for the history lock (HISTORY_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Called when another daemon holds the lock and the wait for it begins. */
  onLockWait?: LockOptions['onWait'];
}

/**
 * The opt-in turn history: an append-only log of keyed records in numbered segment files
 * under `$XDG_STATE_HOME/clippy/history` (0700, files 0600), held by one daemon at a time
 * (HistoryLock). Opening reads every segment (recovery.ts: damage is moved aside, the segment
 * rewritten with its sound records) into the in-memory index (HistoryIndex); the search index
 * fills in the background (TurnSearch). Writes are queued and done by a SegmentWriter (never on
 * the output path); a failed write pauses persistence. Retention drops the oldest segments.
 */
export class TurnStore {
  readonly dir: string;
  private readonly segmentMaxBytes: number;
  private readonly log: Logger;
  private readonly index = new HistoryIndex();
  private readonly reader: SegmentReader;
  private readonly finder: TurnSearch;
  private readonly retention: Retention;
  private writer: SegmentWriter | null = null;
  private readonly pauses = new PauseRecord();
  private _warning: string | null = null;
  private closed = false;

  private constructor(
    opts: TurnStoreOptions,
    private readonly lock: HistoryLock,
  ) {
    this.dir = opts.dir;
    this.log = opts.log;
    this.segmentMaxBytes = opts.segmentMaxBytes ?? SEGMENT_MAX_BYTES;
    this.reader = new SegmentReader(this.dir, this.index);
    this.finder = new TurnSearch({
      index: this.index,
      segmentPath: (n) => this.reader.segmentPath(n),
      readTurnMeta: async (ref) => (await this.readTurn(ref)).meta,
    });
    this.retention = new Retention(
      {
        index: this.index,
        log: this.log,
        currentSegment: () => this.writer?.segment ?? this.index.lastSegment,
        carryMeta: async (s) => void (await this.append(s.meta, [])),
        carryExit: async (s) => {
          const screen = await this.readExitScreen(s).catch(() => null);
          const { k: _k, sl: _sl, ...exit } = s.exit!;
          await this.persistExit(exit, screen);
        },
        removeFiles: (n) => this.removeSegmentFiles(n),
      },
      opts.maxBytes ?? DEFAULT_HISTORY_MAX_BYTES,
      opts.maxAgeMs ?? DEFAULT_HISTORY_MAX_AGE_MS,
    );
  }

  /**
   * Takes the history's lock (waiting a bounded time for a predecessor still exiting), then
   * reads what is there (nothing is created until something is persisted). Damage never stops
   * the open: it is moved aside, logged, and shown in `warning`. Throws when the lock stays
   * held or the directory cannot be read.
   */
  static open(opts: TurnStoreOptions): TurnStore {
    const lock = HistoryLock.acquire(`${opts.dir}.lock`, {
      ...(opts.lockWaitMs !== undefined ? { waitMs: opts.lockWaitMs } : {}),
      onWait: (holder) => {
        opts.log.warn(
          { holder, lock: `${opts.dir}.lock` },
          'history: waiting for the history lock (another clippyd holds it, or one still exiting)',
        );
        opts.onLockWait?.(holder);
      },
    });
    const store = new TurnStore(opts, lock);
    try {
      store.load();
    } catch (err) {
      lock.release();
      throw err;
    }
    store.finder.indexLoaded();
    store.retention.start();
    return store;
  }

  get maxBytes(): number {
    return this.retention.maxBytes;
  }

  get maxAgeMs(): number {
    return this.retention.maxAgeMs;
  }

  /** Why persistence is paused, or what was damaged at start; null when all is well. */
  get warning(): string | null {
    const paused = this.writer?.paused;
    if (paused) return `persistence paused: ${paused.message}`;
    return this._warning;
  }

  get paused(): boolean {
    return this.writer?.paused != null;
  }

  /** Every persisted session (oldest first). */
  persistedSessions(): PersistedSession[] {
    return this.index.persistedSessions();
  }

  session(id: string): PersistedSession | undefined {
    return this.index.sessions.get(id);
  }

  status() {
    return {
      dir: this.dir,
      paused: this.paused,
      warning: this.warning,
      sessions: this.index.sessions.size,
      turns: this.index.turnCount,
      bytes: this.index.bytes,
      max_bytes: this.maxBytes,
      max_age_ms: this.maxAgeMs,
      last_pause: this.pauses.last,
    };
  }

  // --- writing ---

  /** Starts persisting a session (its record first: turns follow it in the log). */
  persistSession(meta: Omit<SessionMeta, 'k'>): Promise<boolean> {
    const record: SessionMeta = { k: 'session', ...meta };
    this.index.begin(record);
    return this.append(record, []).then((at) => at !== null);
  }

  /** Appends a completed turn; resolves true once it is written (false: dropped, paused). */
  async persistTurn(
    turn: Omit<
      TurnRecordMeta,
      'k' | 'cl' | 'tl' | 'src' | 'stl' | 'usage' | 'agent' | 'disagreement'
    > & {
      content: Uint8Array;
      text: string;
      text_source?: 'agent' | 'screen';
      /** With `text_source` `agent`: the screen's text, kept beside the answer. */
      screen_text?: string;
      agent?: AgentTurn;
      disagreement?: string;
    },
    usage?: SessionUsage,
  ): Promise<boolean> {
    const textBytes = Buffer.from(turn.text);
    const screenBytes =
      turn.text_source === 'agent' && turn.screen_text !== undefined
        ? Buffer.from(turn.screen_text)
        : null;
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
      ...(screenBytes ? { src: 'agent' as const, stl: screenBytes.length } : {}),
      ...(turn.agent ? { agent: turn.agent } : {}),
      ...(usage && Object.keys(usage).length > 0 ? { usage } : {}),
      ...(turn.disagreement ? { disagreement: turn.disagreement } : {}),
    };
    const blobs = [turn.content, textBytes, ...(screenBytes ? [screenBytes] : [])];
    const at = await this.append(meta, blobs, turn.text);
    if (at === null) this.pauses.turnNotWritten();
    else this.pauses.turnWritten();
    return at !== null;
  }

  /** Records the end of a session's process and its final screen (for snapshots). */
  async persistExit(meta: Omit<ExitMeta, 'k' | 'sl'>, screen: string | null): Promise<void> {
    const blob = Buffer.from(screen ?? '');
    await this.append({ k: 'exit', ...meta, sl: blob.length }, [blob]);
  }

  /** Forgets a session (`clippy rm`): not restored or searched any more. */
  async persistRemove(session: string): Promise<void> {
    if (!this.index.sessions.has(session)) return;
    this.index.forget(session);
    await this.append({ k: 'remove', session, at: Date.now() }, []);
  }

  /** Runs retention now (also done every RETENTION_INTERVAL_MS and after each new segment). */
  enforceRetention(now = Date.now()): Promise<void> {
    return this.retention.enforce(now);
  }

  /** Waits for queued writes, forces them to disk, closes the files and lets go of the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.retention.close();
    await this.finder.close();
    await this.writer?.close();
    this.lock.release();
  }

  dispose(): Promise<void> {
    return this.close();
  }

  // --- reading ---

  /** A persisted turn's exact bytes and text (its record verified again). */
  readTurn(ref: TurnRef): Promise<ReadTurn> {
    return this.reader.readTurn(ref);
  }

  /** The same, synchronously (restoring rings at start, before the daemon serves). */
  readTurnSync(ref: TurnRef): ReadTurn {
    return this.reader.readTurnSync(ref);
  }

  /** The final screen recorded with a session's exit, or null. */
  readExitScreen(session: PersistedSession): Promise<string | null> {
    return this.reader.readExitScreen(session);
  }

  /**
   * Persisted turns whose text contains `query` (case-insensitive; found through the index,
   * so from the start of a word), newest first, with the matching lines.
   */
  search(
    query: string,
    opts: { session?: string; since?: number; limit?: number } = {},
  ): Promise<SearchHit[]> {
    return this.finder.search(query, opts);
  }

  /** Distinct words in the search index. */
  get indexedWords(): number {
    return this.finder.indexedWords;
  }

  /** Resolves once every turn is in the search index (benchmarks, tests). */
  indexed(): Promise<void> {
    return this.finder.indexed();
  }

  // --- internals ---

  private async removeSegmentFiles(n: number): Promise<void> {
    for (const file of [segmentFileName(n), keyFileName(n)]) {
      await unlink(join(this.dir, file)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT')
          this.log.warn({ err, segment: n }, 'history: could not remove a segment');
      });
    }
  }

  /**
   * Appends to the newest segment when it is of this format and has room; else records go to
   * a new one. Its directory is made on the first write.
   */
  private ensureWriter(): SegmentWriter {
    if (this.writer) return this.writer;
    ownFolder(this.dir, 'the history folder');
    const last = this.index.lastSegment;
    const info = this.index.segments.get(last);
    const reuse = info?.format === 2 && info.key !== null && info.size < this.segmentMaxBytes;
    this.writer = new SegmentWriter(
      this.dir,
      reuse ? last : last + 1,
      reuse ? info.size : 0,
      reuse ? info.key : null,
      {
        paused: (err) => {
          this.pauses.began(err);
          this.log.warn(
            { err, dir: this.dir },
            'history: a write failed (disk full?): persistence paused, sessions go on',
          );
        },
        resumed: () => {
          this.pauses.ended();
          this.log.info('history: trying to write again');
        },
        keyed: (segment, key) =>
          this.index.addSegment(segment, { size: 0, newest: 0, format: 2, key }),
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
    const ref = this.index.apply(meta, at, buf.length, blobsOffset(buf));
    if (ref && text !== undefined) this.finder.queue(ref.ordinal, text);
    return at;
  }

  /** Reads every segment into the index (recovery.ts moves damage aside first). */
  private load(): void {
    const damage = readHistory(this.dir, (n, scan, size) => {
      this.index.addSegment(n, { size, newest: 0, format: scan.format, key: scan.key });
      for (const r of scan.records)
        this.index.apply(r.meta, { segment: n, offset: r.offset }, r.length, r.blobsAt - r.offset);
    });
    if (damage.length > 0) {
      this._warning = `damaged history found at start: ${damage.join('; ')}`;
      this.log.warn({ dir: this.dir, damage }, 'history: damaged records moved aside');
    }
  }
}
