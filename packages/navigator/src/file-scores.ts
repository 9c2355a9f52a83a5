import { wordsOf, type RepoIndex } from '@clippy/repomap';
import { fileKind, kindWeights, testSubject, type FileKind } from './file-kinds.js';
import { goalAreas, goalIdentifiers, identifierTerms, inArea, termMatches } from './goal-terms.js';

/** How much a term found in each field counts (a path names a module, a definition names code). */
const FIELD_WEIGHT = { path: 3, def: 2, doc: 1, ref: 0.5, body: 1 } as const;
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
const SPREAD_SHARE = 0.05;
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
 * What a goal is matched against, built once per index: every file's field words, and an
 * inverted index of the words of all texts (a goal term is looked up in the vocabulary once,
 * not in every file).
 */
interface Corpus {
  kinds: FileKind[];
  pathWords: string[][];
  defWords: string[][];
  docWords: string[][];
  refWords: string[][];
  /** Per file: its definitions, lowercased name and words (for the goal's identifiers and the reason). */
  defs: { name: string; lower: string; words: string[] }[][];
  /** Stemmed words of all texts, and per word the files holding it with their counts. */
  vocabulary: string[];
  postingFiles: number[][];
  postingCounts: number[][];
  /** Words in each file's text. */
  bodyLen: Float64Array;
  avgLen: number;
  /** Lowercased identifiers of the texts → the files holding them. */
  identFiles: Map<string, number[]>;
}

const corpora = new WeakMap<RepoIndex, Corpus>();

function corpusOf(index: RepoIndex): Corpus {
  const cached = corpora.get(index);
  if (cached) return cached;
  const files = index.files;
  const vocabId = new Map<string, number>();
  const vocabulary: string[] = [];
  const postingFiles: number[][] = [];
  const postingCounts: number[][] = [];
  /** Identifiers recur across files and tags: each is split and stemmed once. */
  const wordsMemo = new Map<string, string[]>();
  const wordsOfName = (name: string) => {
    let w = wordsMemo.get(name);
    if (!w) wordsMemo.set(name, (w = identifierTerms(name)));
    return w;
  };
  /** An identifier's word ids and the files holding its lowercase form, shared by every file. */
  const split = new Map<string, { ids: number[]; holders: number[] }>();
  const byLower = new Map<string, number[]>();
  const bodyLen = new Float64Array(files.length);
  files.forEach((file, fi) => {
    const { names, counts } = wordsOf(file);
    let len = 0;
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      const count = counts[k]!;
      let s = split.get(name);
      if (!s) {
        const ids = wordsOfName(name).map((w) => {
          let id = vocabId.get(w);
          if (id === undefined) {
            id = vocabulary.length;
            vocabId.set(w, id);
            vocabulary.push(w);
            postingFiles.push([]);
            postingCounts.push([]);
          }
          return id;
        });
        const lower = name.toLowerCase();
        let holders = byLower.get(lower);
        if (!holders) byLower.set(lower, (holders = []));
        s = { ids, holders };
        split.set(name, s);
      }
      for (const id of s.ids) {
        // Postings are appended file by file: this file's entry, if any, is the last one.
        const pf = postingFiles[id]!;
        const pc = postingCounts[id]!;
        if (pf[pf.length - 1] === fi) pc[pc.length - 1]! += count;
        else {
          pf.push(fi);
          pc.push(count);
        }
      }
      len += s.ids.length * count;
      if (s.holders[s.holders.length - 1] !== fi) s.holders.push(fi);
    }
    bodyLen[fi] = len;
  });
  const corpus: Corpus = {
    kinds: files.map((f) => fileKind(f.path, f.generated === true)),
    pathWords: files.map((f) => [
      ...identifierTerms(f.path),
      ...(DECLARATIONS.test(f.path) ? DECLARATION_WORDS : []),
    ]),
    defWords: files.map((f) =>
      f.tags.filter((t) => t.kind === 'def').flatMap((t) => wordsOfName(t.name)),
    ),
    docWords: files.map((f) => f.tags.flatMap((t) => (t.doc ? identifierTerms(t.doc) : []))),
    refWords: files.map((f) =>
      f.tags.filter((t) => t.kind === 'ref').flatMap((t) => wordsOfName(t.name)),
    ),
    defs: files.map((f) =>
      f.tags
        .filter((t) => t.kind === 'def')
        .map((t) => ({
          name: t.name,
          lower: t.name.toLowerCase(),
          words: wordsOfName(t.name),
        })),
    ),
    vocabulary,
    postingFiles,
    postingCounts,
    bodyLen,
    avgLen: bodyLen.reduce((a, b) => a + b, 0) / Math.max(1, files.length),
    identFiles: byLower,
  };
  corpora.set(index, corpus);
  return corpus;
}

function hits(term: string, words: string[]): number {
  let n = 0;
  for (const w of words) if (termMatches(term, w)) n++;
  return n;
}

/** Path words also match a short term by prefix: `res` names response.js, `req` request.js. */
function pathHits(term: string, words: string[]): number {
  if (term.length >= 4) return hits(term, words);
  let n = 0;
  for (const w of words) if (w.startsWith(term)) n++;
  return n;
}

/** Saturating count: one hit counts 1, many approach 2 (a long file cannot win on volume). */
const sat = (n: number) => (n === 0 ? 0 : (2 * n) / (n + 1));

/** BM25's idf: a word found in nearly every file counts for almost nothing. */
const idfOf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/** Occurrences of a term in every file's text (words it names by prefix included). */
function bodyCounts(c: Corpus, term: string, n: number): Float64Array {
  const tf = new Float64Array(n);
  c.vocabulary.forEach((w, id) => {
    if (!termMatches(term, w)) return;
    const fs = c.postingFiles[id]!;
    const cs = c.postingCounts[id]!;
    for (let k = 0; k < fs.length; k++) tf[fs[k]!]! += cs[k]!;
  });
  return tf;
}

/**
 * Lexical relevance of every file to the terms (paths, definition names, doc comments,
 * references, texts; rare terms weigh more) and the goal's identifiers, by file kind, with a
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
  const tfs = terms.map((t) => bodyCounts(c, t, n));
  const idfs = terms.map((t, ti) => {
    let df = 0;
    for (let fi = 0; fi < n; fi++) {
      if (
        tfs[ti]![fi]! > 0 ||
        pathHits(t, c.pathWords[fi]!) > 0 ||
        hits(t, c.defWords[fi]!) > 0 ||
        hits(t, c.docWords[fi]!) > 0
      )
        df++;
    }
    return idfOf(n, df);
  });
  const identIdf = idents.map((id) => {
    let def = 0;
    for (const defs of c.defs) if (defs.some((d) => d.lower === id)) def++;
    return { def: idfOf(n, def), body: idfOf(n, c.identFiles.get(id)?.length ?? 0) };
  });
  const kindWeight = kindWeights(terms);
  const identIn = idents.map((id) => new Set(c.identFiles.get(id) ?? []));
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
      const tf = tfs[ti]![fi]!;
      const body =
        tf === 0
          ? 0
          : (tf * (BODY_K1 + 1)) /
            (tf + BODY_K1 * (1 - BODY_B + (BODY_B * c.bodyLen[fi]!) / Math.max(1, c.avgLen)));
      const fields = [
        FIELD_WEIGHT.path * sat(pathHits(t, c.pathWords[fi]!)),
        FIELD_WEIGHT.def * sat(hits(t, c.defWords[fi]!)),
        FIELD_WEIGHT.doc * sat(hits(t, c.docWords[fi]!)),
        FIELD_WEIGHT.ref * sat(hits(t, c.refWords[fi]!)),
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
