import { allowedLevels, bodyChars, clampLevel, fileBody } from './content.js';
import { runCustomQuery } from './extract.js';
import {
  COST_TABLE_HEAD,
  renderBlock,
  renderCostRow,
  renderFooter,
  renderHeader,
  renderSummaryRow,
  type HeaderInfo,
  type MapFormat,
} from './format.js';
import { pathMatcher } from './globs.js';
import { fullText } from './content.js';
import type { FlightPlan, SectionRule } from './plan.js';
import { rankFiles } from './rank.js';
import { countTokens, estimateTokens } from './tokens.js';
import type {
  IndexedFile,
  Level,
  MapFile,
  MapResult,
  OutlineEntry,
  Personalization,
  RepoIndex,
} from './types.js';

/** The budget when neither the plan nor the caller gives one (the navigator's default too). */
export const DEFAULT_BUDGET = 20_000;
/** Weight of a `--focus` given on the command line (plan weights are explicit). */
export const CLI_FOCUS_WEIGHT = 10;
/** Files listed in topContributors (what `--strict` prints). */
const TOP_CONTRIBUTORS = 10;
/** Estimates may run this much above the exact count; candidates beyond it are not tried. */
const ESTIMATE_TOLERANCE = 1.5;
/** Tokens a code fence and its language tag add to a file's section. */
const BLOCK_OVERHEAD_TOKENS = 6;
/** Characters of the body counted with the header to get the junction right. */
const HEADER_JUNCTION_CHARS = 200;
/** Header re-renders until its own token count is stable (digits change length). */
const HEADER_FIXPOINT_ROUNDS = 4;
/** Exact-count top-up rounds after the first fit (the header reserve is pessimistic). */
const TOP_UP_ROUNDS = 2;
/** Top up only maps below this share of the budget (the promise is 90–100%). */
const TOP_UP_BELOW = 0.97;
/** Downgrade rounds allowed when exact counting finds the map over budget. */
const VERIFY_ROUNDS = 200;

/**
 * What a reader gains from a file at each level (L0..L4), scaled by the file's rank: the fitter
 * buys the upgrade with the best gain per token until nothing more fits. Paths are cheap and
 * useful; full text is worth most but costs most.
 */
const LEVEL_UTILITY = [0, 3, 4.5, 6, 8];
/** README and manifests rank at least like this quantile of ranks (a reader starts there). */
const IMPORTANT_RANK_QUANTILE = 0.9;

export interface RenderOptions {
  plan?: FlightPlan;
  budget?: number;
  /** paths or symbols, as --focus */
  focus?: string[];
  goalTerms?: string[];
  format?: MapFormat;
  showCosts?: boolean;
  summary?: boolean;
  /** Extra verbosity rules applied after the plan's (`-v GLOB:LEVEL`). */
  verbosity?: { pattern: string; level: Level }[];
}

interface FileState {
  file: IndexedFile;
  rank: number;
  pinned?: Level;
  sections: SectionRule[];
  extra: OutlineEntry[];
  level: Level;
}

type CostMemo = Map<string, number>;
const costMemo = new WeakMap<IndexedFile, CostMemo>();
const customMemo = new WeakMap<IndexedFile, Map<string, OutlineEntry[]>>();

function cmpPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Splits --focus values into path patterns (they name files/dirs or are globs) and symbols. */
export function resolveFocus(index: RepoIndex, focus: string[] = []): Personalization {
  const paths: { pattern: string; weight: number }[] = [];
  const symbols: { name: string; weight: number }[] = [];
  for (const raw of focus) {
    const f = raw.trim().replace(/^\.\//, '').replace(/\/+$/, '');
    if (!f) continue;
    const m = pathMatcher(f);
    if (index.files.some((file) => m(file.path)))
      paths.push({ pattern: f, weight: CLI_FOCUS_WEIGHT });
    else symbols.push({ name: f, weight: CLI_FOCUS_WEIGHT });
  }
  return { paths, symbols };
}

async function customEntries(
  index: RepoIndex,
  plan: FlightPlan | undefined,
  file: IndexedFile,
  warnings: string[],
): Promise<OutlineEntry[]> {
  const out: OutlineEntry[] = [];
  const queries = plan?.custom_queries ?? [];
  for (const [i, q] of queries.entries()) {
    if (!pathMatcher(q.pattern)(file.path)) continue;
    if (!file.language || file.language === 'markdown' || file.maxLevel === 1) continue;
    let memo = customMemo.get(file);
    if (!memo) customMemo.set(file, (memo = new Map()));
    let entries = memo.get(q.query);
    if (!entries) {
      try {
        entries = await runCustomQuery(fullText(index, file), file.language, q.query);
      } catch (err) {
        const msg = (err as Error).message.split('\n')[0];
        const w = `custom_queries[${i}]: invalid tree-sitter query for ${file.language}: ${msg}`;
        if (!warnings.includes(w)) warnings.push(w);
        entries = [];
      }
      memo.set(q.query, entries);
    }
    out.push(...entries);
  }
  return out;
}

/** Renders a map of an index within a budget (no re-parsing; custom queries parse lazily). */
export async function renderMap(index: RepoIndex, opts: RenderOptions = {}): Promise<MapResult> {
  const plan = opts.plan;
  const budget = opts.budget ?? plan?.budget ?? DEFAULT_BUDGET;
  if (!Number.isFinite(budget) || budget <= 0) {
    throw new Error(`the token budget must be a number > 0 (got ${budget})`);
  }
  const format: MapFormat = opts.format ?? 'md';
  const warnings = [...index.warnings];

  // Ranking: plan focus + --focus + goal terms personalise PageRank.
  const cli = resolveFocus(index, opts.focus);
  const personalization: Personalization = {
    paths: [...(plan?.focus?.paths ?? []), ...(cli.paths ?? [])],
    symbols: [...(plan?.focus?.symbols ?? []), ...(cli.symbols ?? [])],
    terms: opts.goalTerms ?? [],
  };
  const ranked = rankFiles(index, personalization);
  const rankOf = new Map(ranked.map((r) => [r.path, r.rank]));

  // Verbosity rules: last match wins; section rules accumulate in order.
  const rules = [
    ...(plan?.verbosity ?? []),
    ...(opts.verbosity ?? []).map((v) => ({
      pattern: v.pattern,
      level: v.level,
      sections: undefined,
    })),
  ].map((r) => ({ ...r, match: pathMatcher(r.pattern) }));

  const states: FileState[] = [];
  for (const file of index.files) {
    let pinned: Level | undefined;
    const sections: SectionRule[] = [];
    for (const r of rules) {
      if (!r.match(file.path)) continue;
      if (r.level !== undefined) pinned = r.level as Level;
      if (r.sections) sections.push(...r.sections);
    }
    const extra = plan?.custom_queries?.length
      ? await customEntries(index, plan, file, warnings)
      : [];
    const hasSections = sections.length > 0;
    const st: FileState = { file, rank: rankOf.get(file.path) ?? 0, sections, extra, level: 0 };
    if (pinned !== undefined) {
      st.pinned = pinned === 0 ? 0 : clampLevel(file, pinned, hasSections);
      st.level = st.pinned;
    } else if (hasSections) st.level = 1;
    states.push(st);
  }
  // Output order: important files (README, manifests) first, then by rank, ties by path.
  states.sort(
    (a, b) =>
      Number(b.file.important) - Number(a.file.important) ||
      b.rank - a.rank ||
      cmpPath(a.file.path, b.file.path),
  );

  const blockFor = (st: FileState, level: Level, first = false): string => {
    const body = fileBody(index, st.file, level, st.sections, st.extra);
    const block = renderBlock(format, {
      path: st.file.path,
      level,
      language: st.file.language,
      rank: st.rank,
      body,
    });
    return format === 'json' && !first ? `,${block}` : block;
  };
  // What a file's rendered section depends on besides its level (computed once per file).
  const memoBase = new Map<FileState, string>();
  const memoKey = (st: FileState, level: Level) => {
    let base = memoBase.get(st);
    if (base === undefined) {
      const sections = st.sections.length ? JSON.stringify(st.sections) : '';
      const extra = st.extra.map((e) => `${e.type}@${e.line}-${e.endLine}`).join(',');
      base = `${format}|${sections}|${extra}|${format === 'md' ? '' : st.rank}`;
      memoBase.set(st, base);
    }
    return `${base}|${level}`;
  };
  const cost = (st: FileState, level: Level): number => {
    if (level === 0) return 0;
    let memo = costMemo.get(st.file);
    if (!memo) costMemo.set(st.file, (memo = new Map()));
    const key = memoKey(st, level);
    let c = memo.get(key);
    if (c === undefined) {
      c = countTokens(blockFor(st, level));
      memo.set(key, c);
    }
    return c;
  };
  /**
   * A cost estimate that reads nothing and counts nothing big: L1 exactly, L2/L3 from the
   * outline's length, L4 from the file size. The fitter ranks by it and counts exactly later.
   */
  const estimateMemo = new Map<FileState, number[]>();
  const estimate = (st: FileState, level: Level): number => {
    if (level <= 1) return cost(st, level);
    let m = estimateMemo.get(st);
    if (!m) estimateMemo.set(st, (m = []));
    let e = m[level];
    if (e === undefined) {
      const chars =
        level === 4
          ? st.sections.length === 0
            ? st.file.bytes
            : (fileBody(index, st.file, level, st.sections, st.extra)?.length ?? 0)
          : bodyChars(index, st.file, level as 2 | 3, st.sections, st.extra);
      e = cost(st, 1) + estimateTokens(chars) + BLOCK_OVERHEAD_TOKENS;
      m[level] = e;
    }
    return e;
  };

  const counts = (): [number, number, number, number, number] => {
    const c: [number, number, number, number, number] = [0, 0, 0, 0, 0];
    for (const st of states) c[st.level]++;
    return c;
  };
  const headerInfo = (tokens: number): HeaderInfo => ({
    files: states.filter((s) => s.level > 0).length,
    tokens,
    budget,
    overBudget: tokens > budget,
    countsByLevel: counts(),
  });
  // Reserve room for the header at its widest (every count as long as the file count).
  const widest = String(Math.max(index.files.length, budget * 10));
  const headerReserve =
    countTokens(
      renderHeader(format, {
        files: Number(widest),
        tokens: Number(widest),
        budget,
        overBudget: true,
        countsByLevel: [
          Number(widest),
          Number(widest),
          Number(widest),
          Number(widest),
          Number(widest),
        ],
      }) + renderFooter(format),
    ) + 2;

  // Fit: pinned levels stay; every other file gets a level by rank within what is left.
  let used = headerReserve;
  for (const st of states) used += cost(st, st.level);
  const free = states.filter((s) => s.pinned === undefined);
  const setLevel = (st: (typeof states)[number], level: Level, delta: number): void => {
    used += delta;
    st.level = level;
  };
  fill(free, budget, () => used, setLevel, cost, estimate);

  // Verify exactly: render, count, and step the lowest-ranked free files down while over.
  // Header and body are counted together once; when the header's numbers change, only the
  // header's share is recounted (with the start of the body, so the junction counts exactly).
  const withHeader = (body: string, mapTokens?: number): { output: string; total: number } => {
    const footer = renderFooter(format);
    const junction = body.slice(0, HEADER_JUNCTION_CHARS);
    let header = renderHeader(format, headerInfo(mapTokens ?? 0));
    let total = countTokens(header + body + footer);
    if (mapTokens !== undefined) return { output: header + body + footer, total };
    for (let round = 0; round < HEADER_FIXPOINT_ROUNDS; round++) {
      const next = renderHeader(format, headerInfo(total));
      if (next === header) break;
      total += countTokens(next + junction) - countTokens(header + junction);
      header = next;
    }
    return { output: header + body + footer, total };
  };
  const mapBody = (): string => {
    let body = '';
    let first = true;
    for (const st of states) {
      if (st.level === 0) continue;
      body += blockFor(st, st.level, first);
      first = false;
    }
    return body;
  };
  let built = withHeader(mapBody());
  for (let topUp = 0; topUp <= TOP_UP_ROUNDS; topUp++) {
    for (let round = 0; round < VERIFY_ROUNDS && built.total > budget; round++) {
      const victim = [...free].reverse().find((s) => s.level > 0);
      if (!victim) break;
      const lower = allowedLevels(victim.file, victim.sections.length > 0).filter(
        (l) => l < victim.level,
      );
      victim.level = lower[lower.length - 1] ?? 0;
      built = withHeader(mapBody());
    }
    // The header reserve was pessimistic: spend what exact counting left over.
    if (topUp === TOP_UP_ROUNDS || built.total >= budget * TOP_UP_BELOW) break;
    used = built.total + 1;
    const before = states.map((st) => st.level);
    fill(free, budget, () => used, setLevel, cost, estimate);
    if (states.every((st, i) => st.level === before[i])) break;
    built = withHeader(mapBody());
  }
  const mapTotal = built.total;
  if (opts.summary || opts.showCosts) {
    // Listings describe the map that would be produced; the header gives that map's size.
    let body = opts.showCosts && format === 'md' ? COST_TABLE_HEAD : '';
    let first = true;
    for (const st of states) {
      let row: string;
      if (opts.showCosts) {
        row = renderCostRow(format, {
          path: st.file.path,
          level: st.level,
          ...fileCostsOf(index, st),
        });
      } else if (st.level > 0) {
        row = renderSummaryRow(format, {
          path: st.file.path,
          level: st.level,
          tokens: cost(st, st.level),
        });
      } else continue;
      body += format === 'json' && !first ? `,${row}` : row;
      first = false;
    }
    built = withHeader(body, mapTotal);
  }

  const files: MapFile[] = states.map((st) => ({
    path: st.file.path,
    level: st.level,
    tokens: cost(st, st.level),
    rank: st.rank,
  }));
  const overBudget = mapTotal > budget;
  const topContributors = files
    .filter((f) => f.level > 0)
    .sort((a, b) => b.tokens - a.tokens || cmpPath(a.path, b.path))
    .slice(0, TOP_CONTRIBUTORS);
  return {
    files,
    totalTokens: mapTotal,
    budget,
    overBudget,
    countsByLevel: counts(),
    topContributors,
    warnings,
    output: built.output,
  };
}

function fileCostsOf(
  index: RepoIndex,
  st: FileState,
): { l1: number; l2: number; l3: number; l4: number } {
  const at = (level: Level) => {
    const l = clampLevel(st.file, level, false);
    const body = fileBody(index, st.file, l, st.sections, st.extra);
    return countTokens(
      renderBlock('md', {
        path: st.file.path,
        level: l,
        language: st.file.language,
        rank: st.rank,
        body,
      }),
    );
  };
  return { l1: at(1), l2: at(2), l3: at(3), l4: at(4) };
}

/** A file's cost (tokens of its Markdown section) at L1–L4; levels it lacks cost as the next lower. */
export function fileCosts(
  index: RepoIndex,
  filePath: string,
): { l1: number; l2: number; l3: number; l4: number } {
  const file = index.files.find((f) => f.path === filePath);
  if (!file) throw new Error(`not in the index: ${filePath}`);
  return fileCostsOf(index, { file, rank: 0, sections: [], extra: [], level: 0 });
}

interface Candidate {
  st: FileState;
  level: Level;
  ratio: number;
  order: number;
  /** Ratio from an exact count (else from an estimate). */
  exact: boolean;
}

/** Max-heap on ratio; ties by the file's output order (rank, then path) for determinism. */
class CandidateHeap {
  private readonly items: Candidate[] = [];
  get size(): number {
    return this.items.length;
  }
  private before(a: Candidate, b: Candidate): boolean {
    return (
      a.ratio > b.ratio ||
      (a.ratio === b.ratio && (a.order < b.order || (a.order === b.order && a.level < b.level)))
    );
  }
  push(c: Candidate): void {
    const xs = this.items;
    xs.push(c);
    let i = xs.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(xs[i]!, xs[p]!)) break;
      [xs[i], xs[p]] = [xs[p]!, xs[i]!];
      i = p;
    }
  }
  peek(): Candidate | undefined {
    return this.items[0];
  }
  pop(): Candidate | undefined {
    const xs = this.items;
    const top = xs[0];
    const last = xs.pop();
    if (xs.length && last) {
      xs[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < xs.length && this.before(xs[l]!, xs[m]!)) m = l;
        if (r < xs.length && this.before(xs[r]!, xs[m]!)) m = r;
        if (m === i) break;
        [xs[i], xs[m]] = [xs[m]!, xs[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Greedy knapsack over (file, level) upgrades: repeatedly buys the upgrade with the best
 * rank-weighted gain per token that still fits. Candidates are ranked by estimated cost and
 * counted exactly only when they reach the top (lazy greedy), so big files that never fit are
 * never read or tokenized.
 */
function fill(
  free: FileState[],
  budget: number,
  used: () => number,
  apply: (st: FileState, level: Level, delta: number) => void,
  cost: (st: FileState, level: Level) => number,
  estimate: (st: FileState, level: Level) => number,
): void {
  if (free.length === 0) return;
  const ranks = free.map((s) => s.rank).sort((a, b) => a - b);
  const maxRank = ranks[ranks.length - 1]! || 1;
  const importantRank = ranks[Math.floor((ranks.length - 1) * IMPORTANT_RANK_QUANTILE)]!;
  const weight = new Map<FileState, number>();
  for (const st of free)
    weight.set(st, (st.file.important ? Math.max(st.rank, importantRank) : st.rank) / maxRank);
  const ceiling = new Map<FileState, number>(); // levels at or above this did not fit
  const order = new Map<FileState, number>();
  free.forEach((st, i) => order.set(st, i));
  const gainOf = (st: FileState, level: Level) =>
    weight.get(st)! * (LEVEL_UTILITY[level]! - LEVEL_UTILITY[st.level]!);

  const best = (st: FileState): Candidate | undefined => {
    const room = budget - used();
    const here = cost(st, st.level);
    const cap = ceiling.get(st) ?? 5;
    let top: Candidate | undefined;
    for (const level of allowedLevels(st.file, st.sections.length > 0)) {
      if (level <= st.level || level >= cap) continue;
      const delta = estimate(st, level) - here;
      if (delta > room * ESTIMATE_TOLERANCE) continue;
      const ratio = gainOf(st, level) / Math.max(1, delta);
      if (!top || ratio > top.ratio)
        top = { st, level, ratio, order: order.get(st)!, exact: false };
    }
    return top;
  };
  const heap = new CandidateHeap();
  for (const st of free) {
    const c = best(st);
    if (c) heap.push(c);
  }
  while (heap.size) {
    const c = heap.pop()!;
    if (c.level <= c.st.level) continue;
    const here = cost(c.st, c.st.level);
    if (estimate(c.st, c.level) - here > (budget - used()) * ESTIMATE_TOLERANCE) {
      // Hopeless on its estimate: never read or tokenize it.
      ceiling.set(c.st, Math.min(ceiling.get(c.st) ?? 5, c.level));
      const again = best(c.st);
      if (again) heap.push(again);
      continue;
    }
    const delta = cost(c.st, c.level) - here;
    if (!c.exact) {
      const ratio = gainOf(c.st, c.level) / Math.max(1, delta);
      const next = heap.peek();
      if (next && ratio < next.ratio) {
        heap.push({ ...c, ratio, exact: true });
        continue;
      }
    }
    if (used() + delta > budget) {
      ceiling.set(c.st, Math.min(ceiling.get(c.st) ?? 5, c.level));
      const again = best(c.st);
      if (again) heap.push(again);
      continue;
    }
    apply(c.st, c.level, delta);
    const next = best(c.st);
    if (next) heap.push(next);
  }
}
