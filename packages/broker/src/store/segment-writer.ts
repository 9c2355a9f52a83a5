import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { openOwn } from '../own-files.js';

/** open(2) flags of a key file (written whole) and of a segment (appended to). */
const KEY_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;
import { sealRecord, type SegmentKey } from './record-format.js';
import {
  SEGMENT_HEADER_BYTES,
  keyFileName,
  newSegmentKey,
  segmentFileName,
  segmentHeader,
} from './segment-file.js';

/** Where a record landed: its segment and its offset in it. */
export interface Placement {
  segment: number;
  offset: number;
}

/** How often written records are forced to the disk (fdatasync): a power cut loses at most this much; a killed daemon loses nothing (its writes are in the kernel already). */
export const STORE_SYNC_INTERVAL_MS = 1_000;
/** How long persistence stays paused after a failed write (disk full) before it tries again. */
export const STORE_RESUME_RETRY_MS = 10_000;

type Item =
  { kind: 'record'; buf: Buffer; done: (at: Placement | null) => void } | { kind: 'rotate' };

export interface WriterEvents {
  /** A write failed: persistence is paused (records are dropped) until the retry. */
  paused(err: Error): void;
  /** The retry period passed: the next write tries again. */
  resumed(): void;
  /** A new segment got its key (before any record in it is reported written). */
  keyed(segment: number, key: SegmentKey): void;
}

/**
 * Appends records to the current segment file, in order, off the caller's path: `append`
 * queues and returns at once; a loop seals each record for the offset it lands at and writes
 * everything queued in one `write` (a libuv thread does the I/O). A new segment gets a new key:
 * its key file is written and synced first, then the header goes before its first record. A
 * failed write (ENOSPC, EIO) cuts the file back to its last whole record, pauses persistence
 * and drops what is queued: a full disk never blocks or crashes the daemon, and never leaves a
 * torn record behind.
 */
export class SegmentWriter {
  private fd: FileHandle | null = null;
  private queue: Item[] = [];
  private running = false;
  private idle: (() => void)[] = [];
  private syncTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private _paused: Error | null = null;
  /** Bytes the current segment will hold once the queue is written (for rotation). */
  private pendingEnd: number;

  /**
   * `key`: the key of segment `_segment` when it already holds `size` bytes (appending to it);
   * null to begin that segment afresh.
   */
  constructor(
    private readonly dir: string,
    private _segment: number,
    private size: number,
    private key: SegmentKey | null,
    private readonly events: WriterEvents,
  ) {
    if (!key) this.size = 0;
    this.pendingEnd = this.size;
  }

  get segment(): number {
    return this._segment;
  }

  /** The error that paused persistence, or null while it writes. */
  get paused(): Error | null {
    return this._paused;
  }

  /** Bytes in the current segment once the queue is written. */
  get queuedEnd(): number {
    return this.pendingEnd;
  }

  /**
   * Queues an encoded record (its header is sealed when its offset is known); resolves where
   * it landed once written, or null when it was dropped.
   */
  append(buf: Buffer): Promise<Placement | null> {
    if (this.closed || this._paused) return Promise.resolve(null);
    return new Promise((done) => {
      this.queue.push({ kind: 'record', buf, done });
      if (this.pendingEnd === 0) this.pendingEnd = SEGMENT_HEADER_BYTES;
      this.pendingEnd += buf.length;
      this.kick();
    });
  }

  /** Later records go to a new segment. */
  rotate(): void {
    if (this.closed) return;
    this.queue.push({ kind: 'rotate' });
    this.pendingEnd = 0;
    this.kick();
  }

  /** Resolves once everything queued so far was written (or dropped). */
  flushed(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  async close(): Promise<void> {
    await this.flushed();
    this.closed = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.syncTimer = this.retryTimer = null;
    const fd = this.fd;
    this.fd = null;
    if (fd) {
      await fd.datasync().catch(() => {});
      await fd.close().catch(() => {});
    }
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    void this.loop().finally(() => {
      this.running = false;
      if (this.queue.length > 0 && !this.closed) this.kick();
      else for (const r of this.idle.splice(0)) r();
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.kind === 'rotate') {
        this.queue.shift();
        await this.closeFd();
        this._segment += 1;
        this.size = 0;
        this.key = null;
        continue;
      }
      const batch: { buf: Buffer; done: (at: Placement | null) => void }[] = [];
      while (this.queue[0]?.kind === 'record') {
        const item = this.queue.shift() as Extract<Item, { kind: 'record' }>;
        batch.push(item);
      }
      const start = this.size;
      try {
        const key = await this.segmentKey();
        const fd = await this.file();
        // A fresh segment (or one cut back to nothing) begins with its header.
        const parts = start === 0 ? [segmentHeader(key)] : [];
        let at = start + (start === 0 ? SEGMENT_HEADER_BYTES : 0);
        const placed: number[] = [];
        for (const b of batch) {
          sealRecord(b.buf, key, at);
          placed.push(at);
          parts.push(b.buf);
          at += b.buf.length;
        }
        const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        let written = 0;
        while (written < data.length) {
          const r = await fd.write(data, written, data.length - written, start + written);
          written += r.bytesWritten;
        }
        this.size = start + data.length;
        batch.forEach((b, i) => b.done({ segment: this._segment, offset: placed[i]! }));
        this.scheduleSync();
      } catch (err) {
        await this.fail(err as Error, start, batch);
      }
    }
  }

  /** Cuts the torn write off, drops the batch and the queue, pauses until the retry. */
  private async fail(
    err: Error,
    goodSize: number,
    batch: { done: (at: Placement | null) => void }[],
  ): Promise<void> {
    await this.fd?.truncate(goodSize).catch(() => {});
    this.size = goodSize;
    const dropped = [...batch];
    // A queued rotation goes too: the next append asks for it again if still due.
    for (const item of this.queue.splice(0)) if (item.kind === 'record') dropped.push(item);
    this.pendingEnd = goodSize;
    for (const d of dropped) d.done(null);
    this._paused = err;
    this.events.paused(err);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this._paused = null;
      this.events.resumed();
    }, STORE_RESUME_RETRY_MS);
    this.retryTimer.unref();
  }

  /**
   * The current segment's key; a new one is made, written to the key file and synced before
   * anything of the segment is written (the records are only as durable as their key).
   */
  private async segmentKey(): Promise<SegmentKey> {
    if (this.key) return this.key;
    const key = newSegmentKey();
    const fh = await openOwn(join(this.dir, keyFileName(this._segment)), KEY_FLAGS, 0o600);
    try {
      await fh.writeFile(segmentHeader(key));
      await fh.sync();
    } finally {
      await fh.close();
    }
    this.key = key;
    this.events.keyed(this._segment, key);
    return key;
  }

  private async file(): Promise<FileHandle> {
    if (this.fd) return this.fd;
    // 0600: an agent's output may hold secrets.
    this.fd = await openOwn(join(this.dir, segmentFileName(this._segment)), APPEND_FLAGS, 0o600);
    return this.fd;
  }

  private async closeFd(): Promise<void> {
    const fd = this.fd;
    this.fd = null;
    if (!fd) return;
    await fd.datasync().catch(() => {});
    await fd.close().catch(() => {});
  }

  private scheduleSync(): void {
    if (this.syncTimer || this.closed) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      void this.fd?.datasync().catch(() => {});
    }, STORE_SYNC_INTERVAL_MS);
    this.syncTimer.unref();
  }
}
