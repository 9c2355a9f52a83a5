import fs from 'node:fs';
import path from 'node:path';
import {
  cacheFilePath,
  defaultCacheDir,
  loadCache,
  RACY_MTIME_WINDOW_MS,
  saveCache,
  type CacheEntry,
} from './cache.js';
import { discoverFiles, type DiscoveredFile } from './discovery.js';
import {
  DEFAULT_MAX_FILE_BYTES,
  fastHash,
  processFile,
  type FileJob,
  type ProcessedFile,
} from './process-file.js';
import type { IndexedFile, IndexOptions, RepoIndex } from './types.js';
import { parseInWorkers, workerCountFor } from './workers.js';

/** Files named in one "syntax errors" warning before the rest are counted. */
const MAX_NAMED_IN_WARNING = 5;

/** What identifies one discovered file's state (the render cache compares these). */
export interface FileStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  hash?: string;
}

/** Walks, reads and parses a repository (tags from the cache when files are unchanged). */
export async function indexRepository(opts: IndexOptions): Promise<RepoIndex> {
  return (await indexWithStamps(opts)).index;
}

/**
 * indexRepository, also returning each discovered file's stamp (binary files included).
 * `whileParsing` runs on this thread while worker threads parse (work the caller needs next).
 */
export async function indexWithStamps(
  opts: IndexOptions,
  discovered?: DiscoveredFile[],
  whileParsing?: () => void,
): Promise<{ index: RepoIndex; stamps: FileStamp[] }> {
  const root = path.resolve(opts.root);
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch {
    throw new Error(`no such directory: ${opts.root}`);
  }
  if (!st.isDirectory()) throw new Error(`not a directory: ${opts.root}`);
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (!(maxFileBytes > 0)) throw new Error(`the file size cap must be > 0 (got ${maxFileBytes})`);
  const warnings: string[] = [];
  const found =
    discovered ?? discoverFiles({ root, include: opts.include, exclude: opts.exclude }, warnings);

  const useCache = opts.cache !== false;
  const realRoot = fs.realpathSync(root);
  const cacheFile = cacheFilePath(opts.cacheDir ?? defaultCacheDir(), realRoot, maxFileBytes);
  const cache = useCache
    ? loadCache(cacheFile, realRoot, maxFileBytes)
    : new Map<string, CacheEntry>();
  const fresh = new Map<string, CacheEntry>();
  const files: (IndexedFile | null)[] = new Array(found.length).fill(null);
  const pending: number[] = [];

  for (let i = 0; i < found.length; i++) {
    const f = found[i]!;
    const e = cache.get(f.path);
    if (e && e.size === f.size && e.mtimeMs === f.mtimeMs && e.ctimeMs === f.ctimeMs) {
      if (e.hash === undefined || hashOf(f.abs) === e.hash) {
        files[i] = e.file;
        fresh.set(f.path, e);
        continue;
      }
    }
    pending.push(i);
  }

  const total = pending.length;
  let done = 0;
  const progress = (n: number) => {
    done += n;
    opts.onProgress?.(done, total);
  };
  const jobs: FileJob[] = pending.map((i) => ({
    abs: found[i]!.abs,
    rel: found[i]!.path,
    size: found[i]!.size,
  }));
  const readAt = Date.now();
  const workerCount = workerCountFor(opts.workers ?? 'auto', jobs.length);
  let processed: ProcessedFile[];
  if (workerCount > 0) {
    processed = await parseInWorkers(jobs, maxFileBytes, workerCount, progress, whileParsing);
  } else {
    processed = [];
    for (const job of jobs) {
      processed.push(await processFile(job, maxFileBytes));
      progress(1);
    }
  }
  pending.forEach((i, k) => {
    const f = found[i]!;
    const r = processed[k]!;
    files[i] = r.file;
    if (r.warning) warnings.push(r.warning);
    // Recently modified files may change again within one mtime tick: keep their hash.
    const racy = readAt - f.mtimeMs < RACY_MTIME_WINDOW_MS;
    fresh.set(f.path, {
      size: f.size,
      mtimeMs: f.mtimeMs,
      ctimeMs: f.ctimeMs,
      ...(racy && r.hash ? { hash: r.hash } : {}),
      file: r.file,
    });
  });

  if (useCache && (pending.length > 0 || fresh.size !== cache.size)) {
    try {
      saveCache(cacheFile, realRoot, maxFileBytes, fresh);
    } catch (err) {
      warnings.push(`cannot write the tag cache ${cacheFile}: ${(err as Error).message}`);
    }
  }

  const indexed = files.filter((f): f is IndexedFile => f !== null);
  const syntax = indexed.filter((f) => f.error?.startsWith('syntax errors')).map((f) => f.path);
  if (syntax.length) {
    const named = syntax.slice(0, MAX_NAMED_IN_WARNING).join(', ');
    const more =
      syntax.length > MAX_NAMED_IN_WARNING
        ? ` and ${syntax.length - MAX_NAMED_IN_WARNING} more`
        : '';
    warnings.push(
      `${syntax.length} file(s) have syntax errors (outline may be incomplete): ${named}${more}`,
    );
  }
  const stamps: FileStamp[] = found.map((f) => {
    const e = fresh.get(f.path);
    return {
      path: f.path,
      size: f.size,
      mtimeMs: f.mtimeMs,
      ctimeMs: f.ctimeMs,
      ...(e?.hash ? { hash: e.hash } : {}),
    };
  });
  return { index: { root, files: indexed, warnings }, stamps };
}

function hashOf(abs: string): string | undefined {
  try {
    return fastHash(fs.readFileSync(abs));
  } catch {
    return undefined;
  }
}
