import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheFilePath, loadCache, saveCache, type CacheEntry } from '../src/cache.js';
import { bodyChars, fileBody, outlineOf, packOutline } from '../src/content.js';
import { generateMap, indexRepository, renderMap } from '../src/index.js';
import { DEFAULT_MAX_FILE_BYTES } from '../src/process-file.js';
import { makeFixtureRepo, removeDir } from './fixture.js';

let repo: string;
let cacheDir: string;
beforeEach(() => {
  repo = makeFixtureRepo();
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-cache-'));
});
afterEach(() => {
  removeDir(repo);
  removeDir(cacheDir);
});

const defsOf = async (file: string) => {
  const index = await indexRepository({ root: repo, cacheDir });
  return index.files
    .find((f) => f.path === file)!
    .tags.filter((t) => t.kind === 'def')
    .map((t) => t.name);
};

describe('tag cache', () => {
  it('stores tags under the cache dir and reuses them on the next run', async () => {
    const first = await indexRepository({ root: repo, cacheDir });
    const file = cacheFilePath(cacheDir, fs.realpathSync(repo), DEFAULT_MAX_FILE_BYTES);
    expect(fs.existsSync(file)).toBe(true);
    // + 1: the binary file is cached too (as "not part of the map").
    expect(loadCache(file, fs.realpathSync(repo), DEFAULT_MAX_FILE_BYTES).size).toBe(
      first.files.length + 1,
    );
    const mtime = fs.statSync(file).mtimeMs;
    const second = await indexRepository({ root: repo, cacheDir });
    expect(second.files).toEqual(first.files);
    expect(fs.statSync(file).mtimeMs).toBe(mtime); // nothing changed: not rewritten
  });

  it('is never wrong after an edit, even one that keeps the size and the mtime', async () => {
    const rel = 'src/util/strings.ts';
    const abs = path.join(repo, rel);
    expect(await defsOf(rel)).toEqual(['capitalize', 'slugify']);
    // Same length, same mtime: only the content hash (recent mtime) or ctime can tell.
    const before = fs.statSync(abs);
    fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace('slugify', 'slugifx'));
    fs.utimesSync(abs, before.atime, before.mtime);
    expect(fs.statSync(abs).size).toBe(before.size);
    expect(await defsOf(rel)).toEqual(['capitalize', 'slugifx']);
    // An ordinary edit, and a new file.
    fs.appendFileSync(abs, '\nexport function trimAll(s: string) { return s.trim(); }\n');
    fs.writeFileSync(path.join(repo, 'src/util/extra.ts'), 'export const EXTRA = 1;\n');
    expect(await defsOf(rel)).toEqual(['capitalize', 'slugifx', 'trimAll']);
    expect(await defsOf('src/util/extra.ts')).toEqual(['EXTRA']);
  });

  it('re-checks the content of recently modified files even when size, mtime and ctime match', async () => {
    const rel = 'src/util/strings.ts';
    const first = await indexRepository({ root: repo, cacheDir });
    const file = cacheFilePath(cacheDir, fs.realpathSync(repo), DEFAULT_MAX_FILE_BYTES);
    const entry = loadCache(file, fs.realpathSync(repo), DEFAULT_MAX_FILE_BYTES).get(rel)!;
    // The file was just written, so its mtime is within the racy window: a hash is kept.
    expect(entry.hash).toMatch(/^[0-9a-f]{40}$/);
    expect(first.files.length).toBeGreaterThan(0);
  });

  it('survives concurrent runs and a corrupt cache file', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => indexRepository({ root: repo, cacheDir })));
    expect(runs[1]!.files).toEqual(runs[0]!.files);
    const file = cacheFilePath(cacheDir, fs.realpathSync(repo), DEFAULT_MAX_FILE_BYTES);
    fs.writeFileSync(file, 'not a cache');
    const again = await indexRepository({ root: repo, cacheDir });
    expect(again.files).toEqual(runs[0]!.files);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('uses $XDG_CACHE_HOME/clippy by default and can be turned off', async () => {
    const old = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheDir;
    try {
      await indexRepository({ root: repo });
      expect(fs.readdirSync(path.join(cacheDir, 'clippy', 'repomap')).length).toBe(1);
      fs.rmSync(path.join(cacheDir, 'clippy'), { recursive: true });
      await indexRepository({ root: repo, cache: false });
      expect(fs.existsSync(path.join(cacheDir, 'clippy'))).toBe(false);
    } finally {
      if (old === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = old;
    }
  });
});

describe('tag cache file', () => {
  const entryFor = (i: number, shared: ReturnType<typeof packOutline>): CacheEntry => {
    if (i % 10 === 9) return { size: i, mtimeMs: i, ctimeMs: i, file: null }; // a binary file
    const own = packOutline([
      {
        name: `f${i}`,
        type: 'function',
        depth: 0,
        line: 1,
        endLine: 2,
        summary: `export function f${i}() {`,
        detail: `/** Doc ${i} … */\nexport function f${i}()`,
      },
    ]);
    return {
      size: i,
      mtimeMs: i,
      ctimeMs: i,
      file: {
        path: `src/f${i}.ts`,
        language: 'typescript',
        bytes: i,
        important: false,
        tags: [{ name: `f${i}`, kind: 'def', type: 'function', line: 1, endLine: 2 }],
        // Every third file shares one outline (identical contents), others have their own.
        ...(i % 3 === 0 ? shared : i % 3 === 1 ? own : {}),
      },
    };
  };

  it('keeps every entry and outline over a save and a load, with thousands of outlines', () => {
    const shared = packOutline([
      { name: 'same', type: 'class', depth: 0, line: 3, endLine: 9, summary: 's', detail: 'd' },
    ]);
    const entries = new Map<string, CacheEntry>();
    for (let i = 0; i < 3_000; i++) entries.set(`src/f${i}.ts`, entryFor(i, shared));
    const file = path.join(cacheDir, 'tags.bin');
    saveCache(file, '/repo', 1000, entries);
    const back = loadCache(file, '/repo', 1000);
    expect(back.size).toBe(entries.size);
    for (const [p, e] of entries) {
      const b = back.get(p)!;
      expect(b).toEqual(e);
      if (e.file?.outline) expect(outlineOf(b.file!)).toEqual(outlineOf(e.file));
    }
    // A file cut short, or with an outline outside it, is an empty cache, never an error.
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 10));
    expect(loadCache(file, '/repo', 1000).size).toBe(0);
    fs.writeFileSync(file, bytes.subarray(0, 6));
    expect(loadCache(file, '/repo', 1000).size).toBe(0);
    // Outline bytes damaged inside a well-formed file: a clear error naming the file and the way out.
    const damaged = { ...back.get('src/f1.ts')!.file!, outline: new Uint8Array([1, 2, 3]) };
    expect(() => outlineOf(damaged)).toThrow(/src\/f1\.ts is unreadable.*--no-cache/);
    // Another root or size cap reads as empty too.
    fs.writeFileSync(file, bytes);
    expect(loadCache(file, '/other', 1000).size).toBe(0);
    expect(loadCache(file, '/repo', 999).size).toBe(0);
  });

  it('renders the same map from cached outlines as from freshly parsed ones', async () => {
    const plan = { verbosity: [{ pattern: '**', level: 3 as const }] };
    const fresh = await indexRepository({ root: repo, cacheDir });
    const cached = await indexRepository({ root: repo, cacheDir });
    const a = await renderMap(fresh, { budget: 100_000, plan });
    const b = await renderMap(cached, { budget: 100_000, plan });
    expect(b.output).toBe(a.output);
    expect(b.countsByLevel[3]).toBeGreaterThan(5);
    // The stored sizes the fitter estimates with are those of the bodies themselves.
    for (const f of cached.files) {
      for (const level of [2, 3] as const) {
        expect(bodyChars(cached, f, level)).toBe(fileBody(cached, f, level)?.length ?? 0);
      }
    }
  });
});

describe('render cache', () => {
  it('returns the stored map on a warm re-run and a new one after any edit', async () => {
    const opts = {
      root: repo,
      cacheDir,
      budget: 100_000,
      verbosity: [{ pattern: '**', level: 4 as const }],
    };
    const cold = await generateMap(opts);
    const warm = await generateMap(opts);
    expect(warm.output).toBe(cold.output);
    expect(fs.readdirSync(path.join(cacheDir, 'repomap', 'renders'))).toHaveLength(1);
    const abs = path.join(repo, 'src/util/strings.ts');
    const before = fs.statSync(abs);
    fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace('slugify', 'slugifx'));
    fs.utimesSync(abs, before.atime, before.mtime); // same size and mtime: the hash must tell
    const edited = await generateMap(opts);
    expect(edited.output).toContain('slugifx');
    expect(edited.output).not.toContain('slugify');
    // Different options are a different map.
    const other = await generateMap({ ...opts, format: 'json' });
    expect(other.output.startsWith('{')).toBe(true);
  });
});

describe('parallel parsing', () => {
  it('gives the same index on worker threads as in process', async () => {
    const inProcess = await indexRepository({ root: repo, cache: false, workers: 0 });
    let progress = 0;
    const threaded = await indexRepository({
      root: repo,
      cache: false,
      workers: 2,
      onProgress: (done) => (progress = done),
    });
    expect(threaded.files).toEqual(inProcess.files);
    expect(progress).toBe(inProcess.files.length + 1); // + the binary file, read then dropped
    const a = await renderMap(inProcess, { budget: 800 });
    const b = await renderMap(threaded, { budget: 800 });
    expect(b.output).toBe(a.output);
  });
});
