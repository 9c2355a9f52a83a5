import { wordsOf, type RepoIndex } from '@clippy/repomap';
import { fileKind, kindWeights, testSubject, type FileKind } from './file-kinds.js';
import { goalAreas, goalIdentifiers, identifierTerms, inArea, termMatches } from './goal-terms.js';

/** How much a term found in each field counts (a path names a module, a definition names code). */
const FIELD_WEIGHT = { path: 3, def: 2, body: 1 } as const;
/** Share of the weaker fields' evidence added to the strongest one. */
const OTHER_FIELDS_SHARE = 0.25;
/** BM25 term-frequency saturation and length normalisation for the body (the usual values). */
const BODY_K1 = 1.2;
const BODY_B = 0.75;
/** A goal's identifier (`sendFile`, `NO_COLOR`) defined in a file: the strongest evidence there is. */
const IDENT_DEF_WEIGHT = 4;
/** The same identifier written in a file's text. */
const IDENT_BODY_WEIGHT = 1.5;
/** A file in a part of the repository the goal names (`lib/multistream.js`, `fix(cors):`). */
const AREA_WEIGHT = 4;
/** Share of a test file's score credited to the source file it is named after. */
const TEST_SUBJECT_SHARE = 0.5;
/** Share of a file's score passed to each file it references or is referenced by (one hop). */
const SPREAD_SHARE = 0.1;
/** Type declaration files (`pino.d.ts`, `core.pyi`): a goal about "types" names them. */
const DECLARATIONS = /\.d\.[cm]?ts$|\.pyi$/;
const DECLARATION_WORDS = ['type', 'typing'];
/** Definitions named in a file's reason at most. */
const MAX_SYMBOLS = 5;

export interface Scored {
  path: string;
  score: number;
  /** Goal terms the file matched, for the reasoning. */
  matched: string[];
  /** Definitions whose names matched (the goal's identifiers first). */
  symbols: string[];
  /** The goal's identifiers this file defines (`sendFile`, `TRPCError`). */
  named?: string[];
  /** Not hand-written source: ranked below the source that matches as well. */
  kind?: 'test' | 'doc' | 'generated';
  /** A matching test file named after this one. */
  tested_by?: string;
  /** Parts of the repository named by the goal that hold this file (`utils/body`). */
  areas?: string[];
}

/**
 * What a goal is matched against, built once per index: one vocabulary of stemmed words, every
 * file's field words (path, definition names) as word ids, and its text as
 * identifier ids with counts (an identifier's words are split and stemmed once for the whole
 * repository, so a goal term is compared with each distinct word once, not with every file).
 */
interface Corpus {
  kinds: FileKind[];
  /** Stemmed words, by id. */
  vocabulary: string[];
  pathWords: Int32Array[];
  defWords: Int32Array[];
  /** Per file: its definitions, lowercased name and words (for the goal's identifiers and the reason). */
  defs: { name: string; lower: string; words: string[] }[][];
  /** Distinct identifiers of all texts: their word ids and lowercase form. */
  identWords: Int32Array[];
  identLower: string[];
  /** Per file: the identifiers of its text (ids) and how often each occurs. */
  bodyIdents: Int32Array[];
  bodyCounts: Uint32Array[];
  /** Words in each file's text. */
  bodyLen: Float64Array;
  avgLen: number;
}

const corpora = new WeakMap<RepoIndex, Corpus>();
const NO_COUNTS = new Uint32Array(0);

function corpusOf(index: RepoIndex): Corpus {
  const cached = corpora.get(index);
  if (cached) return cached;
  const files = index.files;
  const vocabId = new Map<string, number>();
  const vocabulary: string[] = [];
  const wordId = (w: string) => {
    let id = vocabId.get(w);
    if (id === undefined) {
      id = vocabulary.length;
      vocabId.set(w, id);
      vocabulary.push(w);
    }
    return id;
  };
  /** Names recur across files and tags: each is split and stemmed once. */
  const nameMemo = new Map<string, string[]>();
  const wordsOfName = (name: string) => {
    let w = nameMemo.get(name);
    if (!w) nameMemo.set(name, (w = identifierTerms(name)));
    return w;
  };
  const ids = (words: string[]) => Int32Array.from(words, wordId);
  const identId = new Map<string, number>();
  const identWords: Int32Array[] = [];
  const identLower: string[] = [];
  const bodyIdents: Int32Array[] = [];
  const bodyCounts: Uint32Array[] = [];
  const bodyLen = new Float64Array(files.length);
  files.forEach((file, fi) => {
    const { names, counts } = wordsOf(file);
    const own = new Int32Array(names.length);
    let len = 0;
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      let id = identId.get(name);
      if (id === undefined) {
        id = identWords.length;
        identId.set(name, id);
        identWords.push(ids(wordsOfName(name)));
        identLower.push(name.toLowerCase());
      }
      own[k] = id;
      len += identWords[id]!.length * counts[k]!;
    }
    bodyIdents.push(own);
    bodyCounts.push(names.length ? counts : NO_COUNTS);
    bodyLen[fi] = len;
  });
  const corpus: Corpus = {
    kinds: files.map((f) => fileKind(f.path, f.generated === true)),
    vocabulary,
    pathWords: files.map((f) =>
      ids([...identifierTerms(f.path), ...(DECLARATIONS.test(f.path) ? DECLARATION_WORDS : [])]),
    ),
    defWords: files.map((f) =>
      ids(f.tags.filter((t) => t.kind === 'def').flatMap((t) => wordsOfName(t.name))),
    ),
    defs: files.map((f) =>
      f.tags
        .filter((t) => t.kind === 'def')
        .map((t) => ({ name: t.name, lower: t.name.toLowerCase(), words: wordsOfName(t.name) })),
    ),
    identWords,
    identLower,
    bodyIdents,
    bodyCounts,
    bodyLen,
    avgLen: bodyLen.reduce((a, b) => a + b, 0) / Math.max(1, files.length),
  };
  corpora.set(index, corpus);
  return corpus;
}

/** Which words of the vocabulary a term names: as a word, and as a path word (short terms by prefix). */
interface TermWords {
  word: Uint8Array;
  path: Uint8Array;
}

function termWords(c: Corpus, term: string): TermWords {
  const word = new Uint8Array(c.vocabulary.length);
  const path = new Uint8Array(c.vocabulary.length);
  c.vocabulary.forEach((w, id) => {
    word[id] = termMatches(term, w) ? 1 : 0;
    // `res` names response.js, `req` request.js.
    path[id] = term.length >= 4 ? word[id]! : w.startsWith(term) ? 1 : 0;
  });
  return { word, path };
}

/** How many of `words` are flagged. */
function hits(flags: Uint8Array, words: Int32Array): number {
  let n = 0;
  for (let k = 0; k < words.length; k++) n += flags[words[k]!]!;
  return n;
}

/** Occurrences of a term's words in every file's text. */
function bodyCounts(c: Corpus, t: TermWords, n: number): Float64Array {
  const perIdent = new Float64Array(c.identWords.length);
  c.identWords.forEach((words, id) => (perIdent[id] = hits(t.word, words)));
  const tf = new Float64Array(n);
  for (let fi = 0; fi < n; fi++) {
    const own = c.bodyIdents[fi]!;
    const counts = c.bodyCounts[fi]!;
    let sum = 0;
    for (let k = 0; k < own.length; k++) sum += perIdent[own[k]!]! * counts[k]!;
    tf[fi] = sum;
  }
  return tf;
}

/** The files whose text holds an identifier (compared lowercased: `sendfile`, `trpcerror`). */
function filesHolding(c: Corpus, lower: string): Set<number> {
  const flag = new Uint8Array(c.identLower.length);
  c.identLower.forEach((l, id) => (flag[id] = l === lower ? 1 : 0));
  const out = new Set<number>();
  c.bodyIdents.forEach((own, fi) => {
    if (hits(flag, own) > 0) out.add(fi);
  });
  return out;
}

/** Saturating count: one hit counts 1, many approach 2 (a long file cannot win on volume). */
const sat = (n: number) => (n === 0 ? 0 : (2 * n) / (n + 1));

/** BM25's idf: a word found in nearly every file counts for almost nothing. */
const idfOf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * Lexical relevance of every file to the terms (paths, definition names,
 * texts; rare terms weigh more) and the goal's identifiers, by file kind, with a
 * matching test's credit to its subject, then spread one hop along the reference graph.
 */
export function scoreFiles(
  index: RepoIndex,
  graph: Map<string, Map<string, number>>,
  terms: string[],
  goal = '',
): Scored[] {
  const c = corpusOf(index);
  const files = index.files;
  const n = files.length;
  const idents = goalIdentifiers(goal);
  const flags = terms.map((t) => termWords(c, t));
  const tfs = flags.map((f) => bodyCounts(c, f, n));
  const idfs = flags.map((f, ti) => {
    let df = 0;
    for (let fi = 0; fi < n; fi++) {
      if (
        tfs[ti]![fi]! > 0 ||
        hits(f.path, c.pathWords[fi]!) > 0 ||
        hits(f.word, c.defWords[fi]!) > 0
      )
        df++;
    }
    return idfOf(n, df);
  });
  const identIn = idents.map((id) => filesHolding(c, id));
  const identIdf = idents.map((id, k) => {
    let def = 0;
    for (const defs of c.defs) if (defs.some((d) => d.lower === id)) def++;
    return { def: idfOf(n, def), body: idfOf(n, identIn[k]!.size) };
  });
  const kindWeight = kindWeights(terms);
  const areas = goalAreas(goal).map((segs) => {
    const holders = new Set<number>();
    files.forEach((f, fi) => {
      if (inArea(f.path, segs)) holders.add(fi);
    });
    return { name: segs.join('/'), holders, idf: idfOf(n, holders.size) };
  });

  const base: Scored[] = [];
  const raw = new Float64Array(n);
  for (let fi = 0; fi < n; fi++) {
    let score = 0;
    const matched: string[] = [];
    terms.forEach((t, ti) => {
      const f = flags[ti]!;
      const tf = tfs[ti]![fi]!;
      const body =
        tf === 0
          ? 0
          : (tf * (BODY_K1 + 1)) /
            (tf + BODY_K1 * (1 - BODY_B + (BODY_B * c.bodyLen[fi]!) / Math.max(1, c.avgLen)));
      const fields = [
        FIELD_WEIGHT.path * sat(hits(f.path, c.pathWords[fi]!)),
        FIELD_WEIGHT.def * sat(hits(f.word, c.defWords[fi]!)),
        FIELD_WEIGHT.body * body,
      ];
      // The strongest field counts in full, the others a little: a common word found in every
      // field of a file must not outweigh a rare word of the goal.
      const strongest = Math.max(...fields);
      const s = strongest + OTHER_FIELDS_SHARE * (fields.reduce((a, b) => a + b, 0) - strongest);
      if (s > 0) matched.push(t);
      score += idfs[ti]! * s;
    });
    // Files naming several of the goal's terms beat files naming one term many times.
    if (terms.length > 1) score *= 1 + matched.length / terms.length;
    const defs = c.defs[fi]!;
    const symbols = new Set<string>();
    idents.forEach((id, k) => {
      const def = defs.find((d) => d.lower === id);
      if (def) {
        score += IDENT_DEF_WEIGHT * identIdf[k]!.def;
        symbols.add(def.name);
      } else if (identIn[k]!.has(fi)) score += IDENT_BODY_WEIGHT * identIdf[k]!.body;
      if (identIn[k]!.has(fi) && !matched.includes(id)) matched.push(id);
    });
    const inAreas = areas.filter((a) => a.holders.has(fi));
    for (const a of inAreas) score += AREA_WEIGHT * a.idf;
    const named = symbols.size;
    for (const d of defs) {
      if (symbols.size >= MAX_SYMBOLS) break;
      if (terms.some((t) => d.words.some((w) => termMatches(t, w)))) symbols.add(d.name);
    }
    raw[fi] = score;
    const kind = c.kinds[fi]!;
    base.push({
      path: files[fi]!.path,
      score: score * kindWeight[kind],
      matched,
      symbols: [...symbols],
      ...(named ? { named: [...symbols].slice(0, named) } : {}),
      ...(kind !== 'source' ? { kind } : {}),
      ...(inAreas.length ? { areas: inAreas.map((a) => a.name) } : {}),
    });
  }
  creditTestSubjects(c, index, base, raw);
  return spreadAlong(graph, base).sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

/** A matching test points at its subject: tests/test_core.py at core.py, a.test.ts at a.ts. */
function creditTestSubjects(c: Corpus, index: RepoIndex, base: Scored[], raw: Float64Array): void {
  const byStem = new Map<string, number[]>();
  index.files.forEach((f, fi) => {
    if (c.kinds[fi] !== 'source') return;
    const stem = (f.path.split('/').at(-1) ?? '').replace(/\.[^.]+$/, '').toLowerCase();
    byStem.set(stem, [...(byStem.get(stem) ?? []), fi]);
  });
  base.forEach((b, fi) => {
    if (b.kind !== 'test' || raw[fi] === 0) return;
    const subject = testSubject(b.path)?.toLowerCase();
    const targets = subject ? (byStem.get(subject) ?? []) : [];
    for (const t of targets) {
      base[t]!.score += (TEST_SUBJECT_SHARE * raw[fi]!) / targets.length;
      base[t]!.tested_by ??= b.path;
    }
  });
}

/** One hop along references, both directions: code that the matches use or that uses them. */
function spreadAlong(graph: Map<string, Map<string, number>>, base: Scored[]): Scored[] {
  const scoreOf = new Map(base.map((s) => [s.path, s.score]));
  const spread = new Map<string, number>();
  for (const [from, edges] of graph) {
    const max = Math.max(0, ...edges.values());
    if (max === 0) continue;
    for (const [to, w] of edges) {
      const share = w / max;
      spread.set(to, (spread.get(to) ?? 0) + SPREAD_SHARE * share * (scoreOf.get(from) ?? 0));
      spread.set(from, (spread.get(from) ?? 0) + SPREAD_SHARE * share * (scoreOf.get(to) ?? 0));
    }
  }
  return base.map((s) => ({ ...s, score: s.score + (spread.get(s.path) ?? 0) }));
}
