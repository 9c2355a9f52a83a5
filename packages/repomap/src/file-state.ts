import type { Upgradable } from './budget-fit.js';
import { allowedLevels, clampLevel, fullText } from './content.js';
import { runCustomQuery } from './extract.js';
import { pathMatcher } from './globs.js';
import type { FlightPlan, SectionRule } from './plan.js';
import type { IndexedFile, Level, OutlineEntry, RepoIndex } from './types.js';

/** One file while a map is rendered: its rank, what the rules ask of it, and its level. */
export interface FileState extends Upgradable {
  file: IndexedFile;
  /** The level a verbosity rule set (the fitter leaves it). */
  pinned?: Level;
  /** Section rules of every matching verbosity rule, in order. */
  sections: SectionRule[];
  /** Entries the plan's custom queries found in it. */
  extra: OutlineEntry[];
}

/** A verbosity rule from the plan or the command line (`-v GLOB:LEVEL`). */
export interface LevelRule {
  pattern: string;
  level?: Level;
  sections?: SectionRule[];
  max_level?: Level;
}

const customMemo = new WeakMap<IndexedFile, Map<string, OutlineEntry[]>>();

export function cmpPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A file at L0 with no rules but `sections` (as `fileCosts` prices it). */
export function plainFileState(
  file: IndexedFile,
  rank: number,
  sections: SectionRule[] = [],
): FileState {
  return newFileState(file, rank, sections, []);
}

function newFileState(
  file: IndexedFile,
  rank: number,
  sections: SectionRule[],
  extra: OutlineEntry[],
  maxLevel?: Level,
): FileState {
  const hasSections = sections.length > 0;
  const allowed = allowedLevels(file, hasSections);
  const capped = maxLevel === undefined ? allowed : allowed.filter((l) => l <= maxLevel);
  return {
    file,
    rank,
    important: file.important,
    levels: capped.length ? capped : allowed.slice(0, 1),
    sections,
    extra,
    level: 0,
  };
}

/** Outline entries the plan's custom queries find in a file (a bad query becomes a warning). */
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

/**
 * Every file of the index with its rank and what the rules ask of it, in output order
 * (important files such as README and manifests first, then by rank, ties by path). Verbosity
 * rules: the last matching level wins and pins the file; section rules accumulate in order, and
 * a file with sections starts at L1.
 */
export async function fileStates(
  index: RepoIndex,
  plan: FlightPlan | undefined,
  extraRules: LevelRule[],
  rankOf: Map<string, number>,
  warnings: string[],
): Promise<FileState[]> {
  const rules = [...(plan?.verbosity ?? []), ...extraRules].map((r) => ({
    ...r,
    match: pathMatcher(r.pattern),
  }));
  const states: FileState[] = [];
  for (const file of index.files) {
    let pinned: Level | undefined;
    let cap: Level | undefined;
    const sections: SectionRule[] = [];
    for (const r of rules) {
      if (!r.match(file.path)) continue;
      if (r.level !== undefined) pinned = r.level as Level;
      if (r.max_level !== undefined) cap = r.max_level as Level;
      if (r.sections) sections.push(...r.sections);
    }
    const extra = plan?.custom_queries?.length
      ? await customEntries(index, plan, file, warnings)
      : [];
    const hasSections = sections.length > 0;
    // A cap limits what the ranked fill may give (a pinned level is the plan's own choice).
    const st = newFileState(
      file,
      rankOf.get(file.path) ?? 0,
      sections,
      extra,
      pinned === undefined ? cap : undefined,
    );
    if (pinned !== undefined) {
      st.pinned = pinned === 0 ? 0 : clampLevel(file, pinned, hasSections);
      st.level = st.pinned;
    } else if (hasSections) st.level = 1;
    states.push(st);
  }
  states.sort(
    (a, b) =>
      Number(b.file.important) - Number(a.file.important) ||
      b.rank - a.rank ||
      cmpPath(a.file.path, b.file.path),
  );
  return states;
}
