/** Verbosity of one file (or one section) in the map: L0 exclude … L4 full text. */
export type Level = 0 | 1 | 2 | 3 | 4;

export interface IndexOptions {
  /** Directory to map. */
  root: string;
  /** Globs (relative to root) a file must match; they also re-admit files an ignore rule dropped. */
  include?: string[];
  /** Globs that always drop a file. */
  exclude?: string[];
  /** Files larger than this are listed (L1) but not read or parsed. */
  maxFileBytes?: number;
  /** Use the tag cache (default true). */
  cache?: boolean;
  /** Cache directory (default `$XDG_CACHE_HOME/clippy`, else `~/.cache/clippy`). */
  cacheDir?: string;
  /** Parser worker threads: a number, or 'auto' (default) to use them only for large trees. */
  workers?: number | 'auto';
  onProgress?: (done: number, total: number) => void;
}

/** A definition or reference found by a tree-sitter tag query (lines are 1-based). */
export interface Tag {
  name: string;
  kind: 'def' | 'ref';
  /** e.g. function, class, method, call, type, heading. */
  type: string;
  line: number;
  endLine: number;
  doc?: string;
  /** References only: occurrences of the name in the file (the tag is the first one). */
  count?: number;
}

/**
 * One entry of a file's outline: a definition (or Markdown heading) with the text each level
 * shows, precomputed at parse time so rendering never re-parses.
 */
export interface OutlineEntry {
  name: string;
  type: string;
  /** 0 for top-level definitions, 1 for their members. */
  depth: number;
  /** 1-based first and last line of the whole definition (doc comments and decorators included). */
  line: number;
  endLine: number;
  /** L2: one line. */
  summary: string;
  /** L3: decorators, doc comment/docstring and the whole signature. */
  detail: string;
}

/** An outline's entries, and the characters of the L2 and L3 bodies built from it. */
export interface OutlineSize {
  entries: number;
  l2Chars: number;
  l3Chars: number;
}

export interface IndexedFile {
  /** posix, relative to root */
  path: string;
  language: string | null;
  bytes: number;
  important: boolean;
  tags: Tag[];
  /** Why the file is shown at L1 only or partially (too large, minified, parse failure …). */
  error?: string;
  /**
   * Definitions and headings in source order, v8-serialized (`outlineOf` in content.ts decodes
   * it). Only files rendered at L2/L3 are ever decoded, so a large cached index loads without
   * rebuilding every outline. Absent for files without definitions (mapped at L1/L4 only).
   */
  outline?: Uint8Array;
  /** Set with `outline`: its size, which cost estimates read instead of decoding it. */
  outlineSize?: OutlineSize;
  /** Number of lines (for the full-text cost estimate). */
  lines?: number;
  /** Highest level this file can be shown at (1 for too-large/minified/binary-ish files). */
  maxLevel?: Level;
  /**
   * The identifiers of the file's text with their counts, packed (`wordsOf` in words.ts decodes
   * it): what a goal's words are matched against. Absent for files not read or minified.
   */
  words?: Uint8Array;
  /** The file's first lines say it is generated ("@generated", "DO NOT EDIT" …). */
  generated?: true;
}

export interface RepoIndex {
  root: string;
  /** sorted by path */
  files: IndexedFile[];
  warnings: string[];
}

export interface Personalization {
  paths?: { pattern: string; weight: number }[];
  symbols?: { name: string; weight: number }[];
  terms?: string[];
}

export interface MapFile {
  path: string;
  level: Level;
  tokens: number;
  rank: number;
}

export interface MapResult {
  files: MapFile[];
  totalTokens: number;
  budget: number;
  overBudget: boolean;
  countsByLevel: [number, number, number, number, number];
  topContributors: MapFile[];
  warnings: string[];
  /** rendered in the format */
  output: string;
}
