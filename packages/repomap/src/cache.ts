import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import type { IndexedFile } from './types.js';

/** Bump when extraction output changes, so old caches are never read as current. */
export const CACHE_VERSION = 6;
/**
 * A file modified this close to when it was read may change again within the same mtime tick
 * (coarse file-system clocks): such entries also store a content hash and are verified by it.
 */
export const RACY_MTIME_WINDOW_MS = 3_000;

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Set when the mtime was too recent to trust. */
  hash?: string;
  file: IndexedFile | null;
}

/** The packed parts of a file kept out of the cache's index, in its bytes part. */
const PACKED = ['outline', 'words'] as const;
type Packed = (typeof PACKED)[number];

/** A cache entry as stored: the file without its packed parts, which lie in the bytes part. */
interface StoredEntry extends Omit<CacheEntry, 'file'> {
  file: Omit<IndexedFile, Packed> | null;
  /** Offset and length of each of the file's packed parts in the bytes part. */
  at?: Partial<Record<Packed, [number, number]>>;
}

interface CacheIndex {
  version: number;
  root: string;
  maxFileBytes: number;
  entries: Record<string, StoredEntry>;
}

/**
 * A cache file is [u32 big-endian length of the index][index: v8-serialized CacheIndex][bytes:
 * every file's packed outline and words, back to back]. They are kept as bytes, not decoded on
 * load: most files are never rendered at L2/L3, and decoding them all was most of the load time.
 */
const INDEX_LENGTH_BYTES = 4;

/** `$XDG_CACHE_HOME/clippy`, else `~/.cache/clippy`. */
export function defaultCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'clippy');
}

/** One cache file per mapped root and size cap (both change what a file's entry holds). */
export function cacheFilePath(cacheDir: string, root: string, maxFileBytes: number): string {
  const key = createHash('sha256').update(`${root}\0${maxFileBytes}`).digest('hex').slice(0, 24);
  return path.join(cacheDir, 'repomap', `tags-v${CACHE_VERSION}-${key}.bin`);
}

/** Reads the cache; a missing, foreign or corrupt file is an empty cache, never an error. */
export function loadCache(
  file: string,
  root: string,
  maxFileBytes: number,
): Map<string, CacheEntry> {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const indexEnd = INDEX_LENGTH_BYTES + readExactly(fd, INDEX_LENGTH_BYTES, 0).readUInt32BE(0);
    if (indexEnd > size) return new Map();
    const data = v8.deserialize(
      readExactly(fd, indexEnd - INDEX_LENGTH_BYTES, INDEX_LENGTH_BYTES),
    ) as CacheIndex;
    if (
      data.version !== CACHE_VERSION ||
      data.root !== root ||
      data.maxFileBytes !== maxFileBytes
    ) {
      return new Map();
    }
    // Read apart from the index, so the packed parts do not keep the index's bytes alive.
    const bytes = readExactly(fd, size - indexEnd, indexEnd);
    const out = new Map<string, CacheEntry>();
    for (const [p, stored] of Object.entries(data.entries)) {
      const { at: where, ...entry } = stored;
      if (where && entry.file) {
        const file: IndexedFile = { ...entry.file };
        for (const key of PACKED) {
          const span = where[key];
          if (!span) continue;
          const [at, length] = span;
          if (!(at >= 0 && length > 0 && at + length <= bytes.length)) return new Map();
          file[key] = new Uint8Array(bytes.buffer, bytes.byteOffset + at, length);
        }
        out.set(p, { ...entry, file });
      } else out.set(p, entry as CacheEntry);
    }
    return out;
  } catch {
    return new Map();
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** `length` bytes of `fd` from `position`; throws if the file is shorter. */
function readExactly(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  for (let done = 0; done < length;) {
    const n = fs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error('cache file truncated');
    done += n;
  }
  return buf;
}

/** Buffers per writev call (Linux accepts at most 1,024). */
const WRITEV_BUFFERS = 512;

/**
 * Writes `chunks` in order with writev, without joining them first: joining 50 MB of outlines
 * cost more than writing them (every page of the joined copy is touched once more).
 */
function writeChunks(fd: number, chunks: Uint8Array[]): void {
  for (let i = 0; i < chunks.length; i += WRITEV_BUFFERS) {
    let group = chunks.slice(i, i + WRITEV_BUFFERS);
    let left = group.reduce((n, c) => n + c.byteLength, 0);
    while (left > 0) {
      let written = fs.writevSync(fd, group);
      left -= written;
      if (left === 0) break;
      // A short write: drop what was written and go on with the rest.
      const rest: Uint8Array[] = [];
      for (const c of group) {
        if (written >= c.byteLength) written -= c.byteLength;
        else {
          rest.push(written ? c.subarray(written) : c);
          written = 0;
        }
      }
      group = rest;
    }
  }
}

/** Writes the cache atomically (temp file + rename), so concurrent runs never see half a file. */
export function saveCache(
  file: string,
  root: string,
  maxFileBytes: number,
  entries: Map<string, CacheEntry>,
): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const parts: Uint8Array[] = [];
  // Identical contents share one packed outline (and words): stored once.
  const offsets = new Map<Uint8Array, number>();
  let length = 0;
  const stored: Record<string, StoredEntry> = {};
  for (const [p, entry] of entries) {
    if (!entry.file || !PACKED.some((key) => entry.file![key])) {
      stored[p] = entry;
      continue;
    }
    const { outline: _o, words: _w, ...rest } = entry.file;
    const where: Partial<Record<Packed, [number, number]>> = {};
    for (const key of PACKED) {
      const part = entry.file[key];
      if (!part) continue;
      let at = offsets.get(part);
      if (at === undefined) {
        at = length;
        offsets.set(part, at);
        parts.push(part);
        length += part.length;
      }
      where[key] = [at, part.length];
    }
    stored[p] = { ...entry, file: rest, at: where };
  }
  const data: CacheIndex = { version: CACHE_VERSION, root, maxFileBytes, entries: stored };
  const index = v8.serialize(data);
  const header = Buffer.alloc(INDEX_LENGTH_BYTES);
  header.writeUInt32BE(index.length);
  try {
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      writeChunks(fd, [header, index, ...parts]);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
