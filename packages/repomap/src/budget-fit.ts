import { BinaryHeap } from './binary-heap.js';
import type { Level } from './types.js';

/** Estimates may run this much above the exact count; candidates beyond it are not tried. */
const ESTIMATE_TOLERANCE = 1.5;
/**
 * What a reader gains from a file at each level (L0..L4), scaled by the file's rank: the fitter
 * buys the upgrade with the best gain per token until nothing more fits. Paths are cheap and
 * useful; full text is worth most but costs most.
 */
const LEVEL_UTILITY = [0, 3, 4.5, 6, 8];
/** README and manifests rank at least like this quantile of ranks (a reader starts there). */
const IMPORTANT_RANK_QUANTILE = 0.9;
/** Above every level: nothing has been found not to fit yet. */
const NO_CEILING = 5;

/** A file the fitter may show at a higher level. */
export interface Upgradable {
  /** Its rank (higher is more relevant to the goal). */
  readonly rank: number;
  /** README and manifests: weighed at least like a high-ranked file. */
  readonly important: boolean;
  /** The levels it can be shown at, ascending. */
  readonly levels: readonly Level[];
  /** Its level now; the fitter raises it. */
  level: Level;
}

/** What a file's section costs at a level, in tokens (0 at L0). */
export interface SectionSizes<T> {
  /** The exact count (renders and tokenizes the section). */
  cost(item: T, level: Level): number;
  /** A cheap estimate that reads and counts nothing big; the fitter ranks by it. */
  estimate(item: T, level: Level): number;
}

interface Candidate<T> {
  item: T;
  level: Level;
  ratio: number;
  /** The item's position in the output (rank, then path): ties go to the earlier file. */
  order: number;
  /** Ratio from an exact count (else from an estimate). */
  exact: boolean;
}

/** Best gain per token first; ties by output order, then the lower level, for determinism. */
function candidateBefore<T>(a: Candidate<T>, b: Candidate<T>): boolean {
  return (
    a.ratio > b.ratio ||
    (a.ratio === b.ratio && (a.order < b.order || (a.order === b.order && a.level < b.level)))
  );
}

/**
 * Greedy knapsack over (file, level) upgrades: repeatedly buys the upgrade with the best
 * rank-weighted gain per token that still fits in `budget`, starting from `used` tokens.
 * Candidates are ranked by estimated cost and counted exactly only when they reach the top
 * (lazy greedy), so big files that never fit are never read or tokenized. `items` are in output
 * order; their levels are raised in place. Returns the tokens used afterwards.
 */
export function fitLevels<T extends Upgradable>(
  items: readonly T[],
  budget: number,
  used: number,
  sizes: SectionSizes<T>,
): number {
  if (items.length === 0) return used;
  const ranks = items.map((s) => s.rank).sort((a, b) => a - b);
  const maxRank = ranks[ranks.length - 1]! || 1;
  const importantRank = ranks[Math.floor((ranks.length - 1) * IMPORTANT_RANK_QUANTILE)]!;
  const weight = new Map<T, number>();
  for (const it of items)
    weight.set(it, (it.important ? Math.max(it.rank, importantRank) : it.rank) / maxRank);
  const ceiling = new Map<T, number>(); // levels at or above this did not fit
  const order = new Map<T, number>();
  items.forEach((it, i) => order.set(it, i));
  const gainOf = (it: T, level: Level) =>
    weight.get(it)! * (LEVEL_UTILITY[level]! - LEVEL_UTILITY[it.level]!);
  const lowerCeiling = (it: T, level: Level) =>
    ceiling.set(it, Math.min(ceiling.get(it) ?? NO_CEILING, level));

  const best = (it: T): Candidate<T> | undefined => {
    const room = budget - used;
    const here = sizes.cost(it, it.level);
    const cap = ceiling.get(it) ?? NO_CEILING;
    let top: Candidate<T> | undefined;
    for (const level of it.levels) {
      if (level <= it.level || level >= cap) continue;
      const delta = sizes.estimate(it, level) - here;
      if (delta > room * ESTIMATE_TOLERANCE) continue;
      const ratio = gainOf(it, level) / Math.max(1, delta);
      if (!top || ratio > top.ratio)
        top = { item: it, level, ratio, order: order.get(it)!, exact: false };
    }
    return top;
  };
  const heap = new BinaryHeap<Candidate<T>>(candidateBefore);
  const offerNext = (it: T) => {
    const c = best(it);
    if (c) heap.push(c);
  };
  for (const it of items) offerNext(it);
  while (heap.size) {
    const c = heap.pop()!;
    const it = c.item;
    if (c.level <= it.level) continue;
    const here = sizes.cost(it, it.level);
    if (sizes.estimate(it, c.level) - here > (budget - used) * ESTIMATE_TOLERANCE) {
      // Hopeless on its estimate: never read or tokenize it.
      lowerCeiling(it, c.level);
      offerNext(it);
      continue;
    }
    const delta = sizes.cost(it, c.level) - here;
    if (!c.exact) {
      const ratio = gainOf(it, c.level) / Math.max(1, delta);
      const next = heap.peek();
      if (next && ratio < next.ratio) {
        heap.push({ ...c, ratio, exact: true });
        continue;
      }
    }
    if (used + delta > budget) {
      lowerCeiling(it, c.level);
      offerNext(it);
      continue;
    }
    used += delta;
    it.level = c.level;
    offerNext(it);
  }
  return used;
}
