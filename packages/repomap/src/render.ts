import { fitLevels } from './budget-fit.js';
import { cmpPath, fileStates, plainFileState, type FileState } from './file-state.js';
import {
  COST_TABLE_HEAD,
  renderCostRow,
  renderFooter,
  renderHeader,
  renderSummaryRow,
  type MapFormat,
} from './format.js';
import { pathMatcher } from './globs.js';
import { levelCost, levelCosts, MapSections, type LevelCosts } from './map-sections.js';
import type { FlightPlan, SectionRule } from './plan.js';
import { rankFiles } from './rank.js';
import { countTokens } from './tokens.js';
import type {
  IndexedFile,
  Level,
  MapFile,
  MapResult,
  Personalization,
  RepoIndex,
} from './types.js';

/** The budget when neither the plan nor the caller gives one (the navigator's default too). */
export const DEFAULT_BUDGET = 20_000;
/** Weight of a `--focus` given on the command line (plan weights are explicit). */
export const CLI_FOCUS_WEIGHT = 10;
/** Files listed in topContributors (what `--strict` prints). */
const TOP_CONTRIBUTORS = 10;
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

/** A rendered map (or listing) and its exact token count. */
interface Framed {
  output: string;
  total: number;
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

/** Renders a map of an index within a budget (no re-parsing; custom queries parse lazily). */
export async function renderMap(index: RepoIndex, opts: RenderOptions = {}): Promise<MapResult> {
  const budget = budgetOf(opts);
  const format: MapFormat = opts.format ?? 'md';
  const warnings = [...index.warnings];
  const rankOf = ranksFor(index, opts);
  const cliRules = (opts.verbosity ?? []).map((v) => ({ pattern: v.pattern, level: v.level }));
  const states = await fileStates(index, opts.plan, cliRules, rankOf, warnings);
  const sections = new MapSections(index, format);

  const map = fitToBudget(index, states, budget, format, sections);
  const listing = listingBody(index, states, format, sections, opts);
  const built = listing === undefined ? map : frame(format, budget, states, listing, map.total);
  return mapResult(states, sections, budget, map.total, warnings, built.output);
}

/** The token budget: the caller's, else the plan's, else the default; refused unless > 0. */
function budgetOf(opts: RenderOptions): number {
  const budget = opts.budget ?? opts.plan?.budget ?? DEFAULT_BUDGET;
  if (!Number.isFinite(budget) || budget <= 0) {
    throw new Error(`the token budget must be a number > 0 (got ${budget})`);
  }
  return budget;
}

/** Each file's rank: plan focus, --focus and goal terms personalise PageRank. */
function ranksFor(index: RepoIndex, opts: RenderOptions): Map<string, number> {
  const cli = resolveFocus(index, opts.focus);
  const personalization: Personalization = {
    paths: [...(opts.plan?.focus?.paths ?? []), ...(cli.paths ?? [])],
    symbols: [...(opts.plan?.focus?.symbols ?? []), ...(cli.symbols ?? [])],
    terms: opts.goalTerms ?? [],
  };
  return new Map(rankFiles(index, personalization).map((r) => [r.path, r.rank]));
}

function countsByLevel(states: readonly FileState[]): [number, number, number, number, number] {
  const c: [number, number, number, number, number] = [0, 0, 0, 0, 0];
  for (const st of states) c[st.level]++;
  return c;
}

/** Tokens kept for header and footer while fitting: the header at its widest figures. */
function headerReserve(format: MapFormat, fileCount: number, budget: number): number {
  const widest = Math.max(fileCount, budget * 10);
  const header = renderHeader(format, {
    files: widest,
    tokens: widest,
    budget,
    overBudget: true,
    countsByLevel: [widest, widest, widest, widest, widest],
  });
  return countTokens(header + renderFooter(format)) + 2;
}

/**
 * Header, body and footer, counted exactly. The header states the map's tokens: given
 * `mapTokens` (a listing describing a map) it states those; otherwise its own figure is
 * re-rendered until stable, recounting only the header's share (with the start of the body, so
 * the junction counts exactly).
 */
function frame(
  format: MapFormat,
  budget: number,
  states: readonly FileState[],
  body: string,
  mapTokens?: number,
): Framed {
  const headerFor = (tokens: number) =>
    renderHeader(format, {
      files: states.filter((s) => s.level > 0).length,
      tokens,
      budget,
      overBudget: tokens > budget,
      countsByLevel: countsByLevel(states),
    });
  const footer = renderFooter(format);
  const junction = body.slice(0, HEADER_JUNCTION_CHARS);
  let header = headerFor(mapTokens ?? 0);
  let total = countTokens(header + body + footer);
  if (mapTokens !== undefined) return { output: header + body + footer, total };
  for (let round = 0; round < HEADER_FIXPOINT_ROUNDS; round++) {
    const next = headerFor(total);
    if (next === header) break;
    total += countTokens(next + junction) - countTokens(header + junction);
    header = next;
  }
  return { output: header + body + footer, total };
}

/**
 * Gives every file a level and renders the map. Pinned levels stay; the others are fitted by
 * rank on estimates, then the map is counted exactly: stepped down while over the budget, and
 * topped up while well under it (the header reserve is pessimistic).
 */
function fitToBudget(
  index: RepoIndex,
  states: readonly FileState[],
  budget: number,
  format: MapFormat,
  sections: MapSections,
): Framed {
  const free = states.filter((s) => s.pinned === undefined);
  let used = headerReserve(format, index.files.length, budget);
  for (const st of states) used += sections.cost(st, st.level);
  fitLevels(free, budget, used, sections);
  const render = () => frame(format, budget, states, sections.body(states));
  let built = render();
  for (let topUp = 0; topUp <= TOP_UP_ROUNDS; topUp++) {
    built = stepDownWhileOver(free, budget, built, render);
    if (topUp === TOP_UP_ROUNDS || built.total >= budget * TOP_UP_BELOW) break;
    const before = states.map((st) => st.level);
    fitLevels(free, budget, built.total + 1, sections);
    if (states.every((st, i) => st.level === before[i])) break;
    built = render();
  }
  return built;
}

/** Steps the lowest-ranked shown free file down one level until the map fits (or rounds end). */
function stepDownWhileOver(
  free: readonly FileState[],
  budget: number,
  built: Framed,
  render: () => Framed,
): Framed {
  for (let round = 0; round < VERIFY_ROUNDS && built.total > budget; round++) {
    const victim = lastShown(free);
    if (!victim) break;
    const lower = victim.levels.filter((l) => l < victim.level);
    victim.level = lower[lower.length - 1] ?? 0;
    built = render();
  }
  return built;
}

function lastShown(states: readonly FileState[]): FileState | undefined {
  for (let i = states.length - 1; i >= 0; i--) if (states[i]!.level > 0) return states[i];
  return undefined;
}

/**
 * The body of `--show-costs` (every file's L1–L4 costs) or `--summary` (shown files and their
 * tokens), describing the fitted map; undefined when neither was asked for.
 */
function listingBody(
  index: RepoIndex,
  states: readonly FileState[],
  format: MapFormat,
  sections: MapSections,
  opts: RenderOptions,
): string | undefined {
  if (!opts.summary && !opts.showCosts) return undefined;
  let body = opts.showCosts && format === 'md' ? COST_TABLE_HEAD : '';
  let first = true;
  for (const st of states) {
    let row: string;
    if (opts.showCosts) {
      row = renderCostRow(format, {
        path: st.file.path,
        level: st.level,
        ...levelCosts(index, st),
      });
    } else if (st.level > 0) {
      row = renderSummaryRow(format, {
        path: st.file.path,
        level: st.level,
        tokens: sections.cost(st, st.level),
      });
    } else continue;
    body += format === 'json' && !first ? `,${row}` : row;
    first = false;
  }
  return body;
}

function mapResult(
  states: readonly FileState[],
  sections: MapSections,
  budget: number,
  totalTokens: number,
  warnings: string[],
  output: string,
): MapResult {
  const files: MapFile[] = states.map((st) => ({
    path: st.file.path,
    level: st.level,
    tokens: sections.cost(st, st.level),
    rank: st.rank,
  }));
  const topContributors = files
    .filter((f) => f.level > 0)
    .sort((a, b) => b.tokens - a.tokens || cmpPath(a.path, b.path))
    .slice(0, TOP_CONTRIBUTORS);
  return {
    files,
    totalTokens,
    budget,
    overBudget: totalTokens > budget,
    countsByLevel: countsByLevel(states),
    topContributors,
    warnings,
    output,
  };
}

/** Each index's files by path (cost queries name files by path, many per plan). */
const byPathMemo = new WeakMap<RepoIndex, Map<string, IndexedFile>>();
function fileAt(index: RepoIndex, filePath: string): IndexedFile {
  let byPath = byPathMemo.get(index);
  if (!byPath) byPathMemo.set(index, (byPath = new Map(index.files.map((f) => [f.path, f]))));
  const file = byPath.get(filePath);
  if (!file) throw new Error(`not in the index: ${filePath}`);
  return file;
}

/**
 * A file's cost at one level, without counting the others (summing the rest of a repository at
 * L1 or L2 must not tokenize every file's full text); with `sections`, as section rules show it.
 */
export function fileCostAt(
  index: RepoIndex,
  filePath: string,
  level: Level,
  sections: SectionRule[] = [],
): number {
  return levelCost(index, plainFileState(fileAt(index, filePath), 0, sections), level);
}

/** A file's cost (tokens of its Markdown section) at L1–L4; levels it lacks cost as the next lower. */
export function fileCosts(index: RepoIndex, filePath: string): LevelCosts {
  return levelCosts(index, plainFileState(fileAt(index, filePath), 0));
}
