import type { SectionSizes } from './budget-fit.js';
import { bodyChars, clampLevel, fileBody } from './content.js';
import type { FileState } from './file-state.js';
import { renderBlock, type MapFormat } from './format.js';
import { countTokens, estimateTokens } from './tokens.js';
import type { IndexedFile, Level, RepoIndex } from './types.js';

/** Tokens a code fence and its language tag add to a file's section. */
const BLOCK_OVERHEAD_TOKENS = 6;

/** Exact section costs, kept per index entry across renders (the navigator renders many times). */
const costMemo = new WeakMap<IndexedFile, Map<string, number>>();

/** The L1–L4 costs of a file's Markdown section (levels it lacks cost as the next lower). */
export interface LevelCosts {
  l1: number;
  l2: number;
  l3: number;
  l4: number;
}

/** Each file's section of a map in one format: its text, its exact cost and a cheap estimate. */
export class MapSections implements SectionSizes<FileState> {
  /** What a section depends on besides its level (computed once per file). */
  private readonly memoBase = new Map<FileState, string>();
  private readonly estimateMemo = new Map<FileState, number[]>();

  constructor(
    private readonly index: RepoIndex,
    private readonly format: MapFormat,
  ) {}

  /** The file's section at a level; in JSON every section but the first starts with a comma. */
  block(st: FileState, level: Level, first = false): string {
    const body = fileBody(this.index, st.file, level, st.sections, st.extra);
    const block = renderBlock(this.format, {
      path: st.file.path,
      level,
      language: st.file.language,
      rank: st.rank,
      body,
    });
    return this.format === 'json' && !first ? `,${block}` : block;
  }

  /** The files above L0, in order: the map without header and footer. */
  body(states: readonly FileState[]): string {
    let body = '';
    let first = true;
    for (const st of states) {
      if (st.level === 0) continue;
      body += this.block(st, st.level, first);
      first = false;
    }
    return body;
  }

  /** Exact tokens of the file's section at a level (rendered and counted once, then memoized). */
  cost(st: FileState, level: Level): number {
    if (level === 0) return 0;
    let memo = costMemo.get(st.file);
    if (!memo) costMemo.set(st.file, (memo = new Map()));
    const key = this.memoKey(st, level);
    let c = memo.get(key);
    if (c === undefined) {
      c = countTokens(this.block(st, level));
      memo.set(key, c);
    }
    return c;
  }

  /**
   * A cost estimate that reads nothing and counts nothing big: L1 exactly, L2/L3 from the
   * outline's length, L4 from the file size. The fitter ranks by it and counts exactly later.
   */
  estimate(st: FileState, level: Level): number {
    if (level <= 1) return this.cost(st, level);
    let m = this.estimateMemo.get(st);
    if (!m) this.estimateMemo.set(st, (m = []));
    let e = m[level];
    if (e === undefined) {
      const chars =
        level === 4
          ? st.sections.length === 0
            ? st.file.bytes
            : (fileBody(this.index, st.file, level, st.sections, st.extra)?.length ?? 0)
          : bodyChars(this.index, st.file, level as 2 | 3, st.sections, st.extra);
      e = this.cost(st, 1) + estimateTokens(chars) + BLOCK_OVERHEAD_TOKENS;
      m[level] = e;
    }
    return e;
  }

  private memoKey(st: FileState, level: Level): string {
    let base = this.memoBase.get(st);
    if (base === undefined) {
      const sections = st.sections.length ? JSON.stringify(st.sections) : '';
      const extra = st.extra.map((e) => `${e.type}@${e.line}-${e.endLine}`).join(',');
      base = `${this.format}|${sections}|${extra}|${this.format === 'md' ? '' : st.rank}`;
      this.memoBase.set(st, base);
    }
    return `${base}|${level}`;
  }
}

/** A file's Markdown section cost at each of L1–L4 (what `--show-costs` lists). */
export function levelCosts(index: RepoIndex, st: FileState): LevelCosts {
  const at = (level: Level) => levelCost(index, st, level);
  return { l1: at(1), l2: at(2), l3: at(3), l4: at(4) };
}

/** A file's Markdown section cost at one level (clamped to the levels it has). */
export function levelCost(index: RepoIndex, st: FileState, level: Level): number {
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
}
