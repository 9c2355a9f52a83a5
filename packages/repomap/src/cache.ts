import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import type { IndexedFile } from './types.js';

/** Bump when extraction output changes, so old caches are never read as current. */
export const CACHE_VERSION = 4;
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

interface CacheFile {
  version: number;
  root: string;
  maxFileBytes: number;
  entries: Record<string, CacheEntry>;
}

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
  try {
    const data = v8.deserialize(fs.readFileSync(file)) as CacheFile;
    if (
      data.version !== CACHE_VERSION ||
      data.root !== root ||
      data.maxFileBytes !== maxFileBytes
    ) {
      return new Map();
    }
    return new Map(Object.entries(data.entries));
  } catch {
    return new Map();
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
  const data: CacheFile = {
    version: CACHE_VERSION,
    root,
    maxFileBytes,
    entries: Object.fromEntries(entries),
  };
  try {
    fs.writeFileSync(tmp, v8.serialize(data), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
