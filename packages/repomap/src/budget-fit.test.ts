import { describe, expect, it } from 'vitest';
import { seededRandom } from '@clippy/testkit/random';
import { fitLevels, type SectionSizes, type Upgradable } from './budget-fit.js';
import type { Level } from './types.js';

/** A file with made-up section costs: `costs[level]` tokens (L0 is free). */
interface Item extends Upgradable {
  name: string;
  costs: number[];
  /** Estimates, when they differ from the exact costs. */
  estimates?: number[];
}

function item(name: string, rank: number, costs: number[], extra: Partial<Item> = {}): Item {
  return { name, rank, important: false, levels: [0, 1, 2, 3, 4], level: 0, costs, ...extra };
}

/** Sizes from the items' tables; records which (file, level) were counted exactly. */
function sizesOf(): SectionSizes<Item> & { counted: string[] } {
  const counted: string[] = [];
  return {
    counted,
    cost: (it, level) => {
      if (level > 0) counted.push(`${it.name}@L${level}`);
      return level === 0 ? 0 : it.costs[level]!;
    },
    estimate: (it, level) => (level === 0 ? 0 : (it.estimates ?? it.costs)[level]!),
  };
}

const levels = (items: Item[]) => Object.fromEntries(items.map((i) => [i.name, i.level]));
const spent = (items: Item[]) => items.reduce((sum, i) => sum + (i.costs[i.level] ?? 0), 0);

describe('fitLevels (fitting file levels into a token budget)', () => {
  it('shows every file in full when the budget holds them all', () => {
    const items = [item('a', 1, [0, 5, 10, 20, 40]), item('b', 0.5, [0, 5, 8, 12, 30])];
    const used = fitLevels(items, 1000, 0, sizesOf());
    expect(levels(items)).toEqual({ a: 4, b: 4 });
    expect(used).toBe(70);
  });

  it('gives the better-ranked of two equal files the higher level when only one fits', () => {
    const costs = [0, 10, 20, 30, 100];
    const items = [item('low', 0.1, costs), item('high', 1, costs)];
    const used = fitLevels(items, 115, 0, sizesOf());
    expect(levels(items)).toEqual({ low: 1, high: 4 });
    expect(used).toBe(110);
  });

  it('counts what is already used (header, pinned files) against the budget', () => {
    const items = [item('a', 1, [0, 10, 20, 30, 40])];
    expect(fitLevels(items, 100, 75, sizesOf())).toBe(95);
    expect(items[0]!.level).toBe(2);
  });

  it('shows an important file (README) even when nothing links to it', () => {
    const others = Array.from({ length: 9 }, (_, i) => item(`f${i}`, 1, [0, 10, 20, 30, 40]));
    const withReadme = (important: boolean) => [
      item('README.md', 0, [0, 10, 20, 30, 40], { important }),
      ...others.map((o) => ({ ...o })),
    ];
    // Room for the paths of five files.
    const plain = withReadme(false);
    fitLevels(plain, 50, 0, sizesOf());
    expect(plain[0]!.level).toBe(0);
    const important = withReadme(true);
    fitLevels(important, 50, 0, sizesOf());
    expect(important[0]!.level).toBe(1);
  });

  it('only uses levels a file has, and never lowers a level', () => {
    const items = [
      item('big.min.js', 1, [0, 5, 5, 5, 5], { levels: [0, 1] }),
      item('data.json', 1, [0, 5, 5, 5, 50], { levels: [0, 1, 4] }),
      item('doc.md', 0.5, [0, 5, 10, 15, 20], { levels: [1, 2, 3, 4], level: 3 }),
    ];
    fitLevels(items, 1000, 15, sizesOf());
    expect(levels(items)).toEqual({ 'big.min.js': 1, 'data.json': 4, 'doc.md': 4 });
  });

  it('never tokenizes a huge file that cannot fit', () => {
    const items = [
      item('small.ts', 1, [0, 10, 20, 30, 40]),
      item('huge.ts', 1, [0, 10, 20, 30, 1_000_000]),
    ];
    const sizes = sizesOf();
    fitLevels(items, 200, 0, sizes);
    expect(levels(items)).toEqual({ 'small.ts': 4, 'huge.ts': 3 });
    expect(sizes.counted).not.toContain('huge.ts@L4');
  });

  it('stays within the budget when estimates are too low', () => {
    const items = [
      item('a', 1, [0, 10, 60, 90, 120], { estimates: [0, 10, 20, 30, 40] }),
      item('b', 0.9, [0, 10, 60, 90, 120], { estimates: [0, 10, 20, 30, 40] }),
    ];
    const used = fitLevels(items, 100, 0, sizesOf());
    expect(used).toBeLessThanOrEqual(100);
    expect(used).toBe(spent(items));
    expect(levels(items)).toEqual({ a: 3, b: 1 });
  });

  it('on random small inputs: within budget, accounted exactly, and nothing more fits', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = seededRandom(seed);
      // Half the runs estimate exactly: then the fit is also maximal (no next level fits).
      const exact = seed % 2 === 0;
      const items = Array.from({ length: 1 + Math.floor(r() * 8) }, (_, i) => {
        let c = 0;
        const costs = [0, 1, 2, 3, 4].map((l) => (l === 0 ? 0 : (c += 1 + Math.floor(r() * 60))));
        const estimates = costs.map((x) => (exact ? x : Math.round(x * (0.7 + r() * 0.6))));
        const all: Level[] = [0, 1, 2, 3, 4];
        const levels = r() < 0.3 ? all.filter((l) => l !== 2 && l !== 3) : all;
        return item(`f${i}`, r(), costs, { estimates, levels, important: r() < 0.1 });
      });
      const start = Math.floor(r() * 20);
      const budget = start + Math.floor(r() * 300);
      const used = fitLevels(items, budget, start, sizesOf());
      expect(used).toBeLessThanOrEqual(budget);
      expect(used).toBe(start + spent(items));
      if (!exact) continue;
      for (const it of items) {
        const next = it.levels.find((l) => l > it.level);
        if (next !== undefined)
          expect(used + it.costs[next]! - it.costs[it.level]!, `seed ${seed}`).toBeGreaterThan(
            budget,
          );
      }
    }
  });
});
