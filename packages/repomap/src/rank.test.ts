import { describe, expect, it } from 'vitest';
import { seededRandom } from '@clippy/testkit/random';
import { rankFiles, referenceGraph } from './rank.js';
import type { IndexedFile, RepoIndex, Tag } from './types.js';

/**
 * A repository of `n` files whose tags define and refer to names from a small pool, so that
 * names are defined by one file, by a few, and by many (the generic names that made the
 * explicit graph huge), files refer to names they define themselves, and some files are dangling.
 */
function randomIndex(seed: number, n: number): RepoIndex {
  const r = seededRandom(seed);
  const pool = Array.from({ length: 60 }, (_, i) =>
    i % 3 === 0 ? `handle_request_${i}` : i % 3 === 1 ? `render${i}` : `_x${i}`,
  );
  const files: IndexedFile[] = [];
  for (let i = 0; i < n; i++) {
    const tags: Tag[] = [];
    const defs = Math.floor(r() * 4);
    for (let k = 0; k < defs; k++) {
      const name = pool[Math.floor(r() * r() * pool.length)]!;
      tags.push({
        name,
        kind: 'def',
        type: r() < 0.1 ? 'impl' : 'function',
        line: k + 1,
        endLine: k + 1,
      });
    }
    const refs = r() < 0.15 ? 0 : Math.floor(r() * 8);
    for (let k = 0; k < refs; k++) {
      const name = pool[Math.floor(r() * pool.length)]!;
      tags.push({
        name,
        kind: 'ref',
        type: 'call',
        line: 10 + k,
        endLine: 10 + k,
        count: 1 + Math.floor(r() * 5),
      });
    }
    files.push({
      path: `src/f${String(i).padStart(3, '0')}.ts`,
      language: 'typescript',
      bytes: 100,
      important: false,
      tags,
    });
  }
  return { root: '/nowhere', files, warnings: [] };
}

/**
 * Textbook PageRank over the explicit file -> file edges (what the link form must equal, to the
 * precision at which rankFiles stops iterating).
 */
function explicitRanks(index: RepoIndex, pers: number[]): Map<string, number> {
  const graph = referenceGraph(index);
  const paths = index.files.map((f) => f.path);
  const at = new Map(paths.map((p, i) => [p, i]));
  const n = paths.length;
  const sum = pers.reduce((a, b) => a + b, 0);
  const tele = pers.map((p) => p / sum);
  let pr = [...tele];
  for (let it = 0; it < 60; it++) {
    const next = new Array<number>(n).fill(0);
    let lost = 0;
    paths.forEach((p, i) => {
      const edges = graph.get(p)!;
      let total = 0;
      for (const w of edges.values()) total += w;
      if (edges.size === 0) lost += pr[i]!;
      else for (const [q, w] of edges) next[at.get(q)!]! += (0.85 * pr[i]! * w) / total;
    });
    pr = next.map((v, i) => v + (0.85 * lost + 0.15) * tele[i]!);
  }
  return new Map(paths.map((p, i) => [p, pr[i]!]));
}

describe('rankFiles', () => {
  it('equals PageRank over the explicit reference graph', () => {
    for (const seed of [1, 2, 3]) {
      const index = randomIndex(seed, 150);
      const expected = explicitRanks(
        index,
        index.files.map(() => 1),
      );
      const got = rankFiles(index);
      expect(got).toHaveLength(150);
      for (const { path, rank } of got) expect(rank).toBeCloseTo(expected.get(path)!, 8);
      // The graph really has the cases the link form must handle.
      const graph = referenceGraph(index);
      expect([...graph.values()].some((e) => e.size === 0)).toBe(true);
      expect([...graph.values()].some((e) => e.size > 20)).toBe(true);
    }
  });

  it('equals it with a focus path personalising the teleport vector', () => {
    const index = randomIndex(7, 120);
    const focused = (p: string) => p.startsWith('src/f00');
    const pers = index.files.map((f) => (focused(f.path) ? 3 + 0.02 * 3 : 0.02 * 3));
    const expected = explicitRanks(index, pers);
    const got = rankFiles(index, { paths: [{ pattern: 'src/f00*', weight: 3 }] });
    for (const { path, rank } of got) {
      const boost = focused(path) ? 1 + 3 : 1;
      expect(rank).toBeCloseTo(expected.get(path)! * boost, 8);
    }
    expect(focused(got[0]!.path)).toBe(true);
  });

  it('sorts by rank, ties by path, and handles a repository without references', () => {
    const files: IndexedFile[] = ['b.ts', 'a.ts', 'c.ts'].map((path) => ({
      path,
      language: 'typescript',
      bytes: 1,
      important: false,
      tags: [],
    }));
    const got = rankFiles({ root: '/nowhere', files, warnings: [] });
    expect(got.map((r) => r.path)).toEqual(['a.ts', 'b.ts', 'c.ts']);
    for (const r of got) expect(r.rank).toBeCloseTo(1 / 3, 8);
  });
});
