import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { CACHE_VERSION, defaultCacheDir } from './cache.js';
import { discoverFiles } from './discovery.js';
import { indexWithStamps, type FileStamp } from './indexer.js';
import { DEFAULT_MAX_FILE_BYTES, fastHash } from './process-file.js';
import { renderMap, type RenderOptions } from './render.js';
import { preloadTokenizer } from './tokens.js';
import type { IndexOptions, MapResult } from './types.js';

/** Rendered maps kept per cache dir (one per recent root + options); older ones are pruned. */
const MAX_CACHED_RENDERS = 32;

interface CachedRender {
  version: number;
  stamps: FileStamp[];
  result: MapResult;
}

function renderKey(root: string, opts: IndexOptions & RenderOptions): string {
  const options = {
    include: opts.include ?? [],
    exclude: opts.exclude ?? [],
    maxFileBytes: opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    plan: opts.plan ?? null,
    budget: opts.budget ?? null,
    focus: opts.focus ?? [],
    goalTerms: opts.goalTerms ?? [],
    format: opts.format ?? 'md',
    showCosts: opts.showCosts ?? false,
    summary: opts.summary ?? false,
    verbosity: opts.verbosity ?? [],
  };
  return createHash('sha256')
    .update(JSON.stringify([CACHE_VERSION, root, options]))
    .digest('hex')
    .slice(0, 32);
}

/** True when every file still has the stamp it had (hash-checked where mtime was racy). */
function sameFiles(root: string, now: FileStamp[], then: FileStamp[]): boolean {
  if (now.length !== then.length) return false;
  for (let i = 0; i < now.length; i++) {
    const a = now[i]!;
    const b = then[i]!;
    if (
      a.path !== b.path ||
      a.size !== b.size ||
      a.mtimeMs !== b.mtimeMs ||
      a.ctimeMs !== b.ctimeMs
    ) {
      return false;
    }
    if (b.hash !== undefined) {
      try {
        if (fastHash(fs.readFileSync(path.join(root, a.path))) !== b.hash) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}

function readCachedRender(file: string): CachedRender | undefined {
  try {
    const data = v8.deserialize(fs.readFileSync(file)) as CachedRender;
    return data.version === CACHE_VERSION ? data : undefined;
  } catch {
    return undefined;
  }
}

function writeCachedRender(file: string, data: CachedRender): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, v8.serialize(data), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
    return;
  }
  const renders = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.bin'))
    .map((f) => ({ f, t: fs.statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const old of renders.slice(MAX_CACHED_RENDERS))
    fs.rmSync(path.join(dir, old.f), { force: true });
}

/**
 * Index + render: what `clippy map` does. With the cache on, a re-run over unchanged files with
 * the same options returns the stored map without parsing, ranking or tokenizing again.
 */
export async function generateMap(opts: IndexOptions & RenderOptions): Promise<MapResult> {
  const budget = opts.budget ?? opts.plan?.budget;
  if (budget !== undefined && (!Number.isFinite(budget) || budget <= 0)) {
    throw new Error(`the token budget must be a number > 0 (got ${budget})`);
  }
  const root = path.resolve(opts.root);
  if (!fs.existsSync(root)) throw new Error(`no such directory: ${opts.root}`);
  const useCache = opts.cache !== false;
  const realRoot = fs.realpathSync(root);
  const renderFile = path.join(
    opts.cacheDir ?? defaultCacheDir(),
    'repomap',
    'renders',
    `${renderKey(realRoot, opts)}.bin`,
  );
  const discoveryWarnings: string[] = [];
  const found = fs.statSync(root).isDirectory()
    ? discoverFiles({ root, include: opts.include, exclude: opts.exclude }, discoveryWarnings)
    : undefined;
  if (useCache && found) {
    const cached = readCachedRender(renderFile);
    const now = found.map((f) => ({
      path: f.path,
      size: f.size,
      mtimeMs: f.mtimeMs,
      ctimeMs: f.ctimeMs,
    }));
    if (cached && sameFiles(root, now, cached.stamps)) return cached.result;
  }
  // Rendering needs the tokenizer (~0.3 s to load): load it while worker threads parse.
  const { index, stamps } = await indexWithStamps(opts, found, preloadTokenizer);
  index.warnings.unshift(...discoveryWarnings);
  const result = await renderMap(index, opts);
  if (useCache) writeCachedRender(renderFile, { version: CACHE_VERSION, stamps, result });
  return result;
}
