import { pathMatcher } from './globs.js';
import type { IndexedFile, Personalization, RepoIndex } from './types.js';

/** PageRank damping: the usual 0.85 (a reader follows a reference 85% of the time). */
const DAMPING = 0.85;
/** Iterations cap; convergence on code graphs takes ~30. */
const MAX_ITERATIONS = 60;
const TOLERANCE = 1e-9;
/** Names defined in more files than this are too generic to link files (aider's rule). */
const GENERIC_NAME_FILES = 5;
/** Teleport mass every file keeps when a focus exists, relative to the strongest focus. */
const UNFOCUSED_SHARE = 0.02;

/** Definition types that do not define a linkable name. */
const NON_LINKING_DEFS = new Set(['heading', 'impl']);

function nameWeight(name: string, definers: number): number {
  let w = 1;
  const isLong = name.length >= 8;
  if (isLong && (/_/.test(name.replace(/^_+/, '')) || (/[a-z]/.test(name) && /[A-Z]/.test(name))))
    w *= 10;
  if (name.startsWith('_')) w *= 0.1;
  if (definers > GENERIC_NAME_FILES) w *= 0.1;
  return w;
}

interface Graph {
  files: IndexedFile[];
  /** per file index: (target index -> weight) */
  edges: Map<number, number>[];
  definers: Map<string, number[]>;
}

const graphCache = new WeakMap<RepoIndex, Graph>();

function buildGraph(index: RepoIndex, symbolBoost?: Map<string, number>): Graph {
  const cached = symbolBoost ? undefined : graphCache.get(index);
  if (cached) return cached;
  const files = index.files;
  const definers = new Map<string, number[]>();
  files.forEach((f, i) => {
    const seen = new Set<string>();
    for (const t of f.tags) {
      if (t.kind !== 'def' || NON_LINKING_DEFS.has(t.type) || seen.has(t.name)) continue;
      seen.add(t.name);
      let list = definers.get(t.name);
      if (!list) definers.set(t.name, (list = []));
      list.push(i);
    }
  });
  const edges = files.map((f, i) => {
    const counts = new Map<string, number>();
    for (const t of f.tags) {
      if (t.kind === 'ref' || t.type === 'impl') {
        counts.set(t.name, (counts.get(t.name) ?? 0) + (t.count ?? 1));
      }
    }
    const out = new Map<number, number>();
    for (const [name, count] of counts) {
      const defs = definers.get(name);
      if (!defs) continue;
      const w = nameWeight(name, defs.length) * Math.sqrt(count) * (symbolBoost?.get(name) ?? 1);
      for (const d of defs) if (d !== i) out.set(d, (out.get(d) ?? 0) + w);
    }
    return out;
  });
  const g = { files, edges, definers };
  if (!symbolBoost) graphCache.set(index, g);
  return g;
}

/** file -> (file it references -> weight), from definition/reference tags. */
export function referenceGraph(index: RepoIndex): Map<string, Map<string, number>> {
  const g = buildGraph(index);
  const out = new Map<string, Map<string, number>>();
  g.edges.forEach((e, i) => {
    const m = new Map<string, number>();
    for (const [j, w] of [...e].sort((a, b) => a[0] - b[0])) m.set(g.files[j]!.path, w);
    out.set(g.files[i]!.path, m);
  });
  return out;
}

function termScore(f: IndexedFile, terms: string[]): number {
  if (terms.length === 0) return 0;
  const p = f.path.toLowerCase();
  let s = 0;
  for (const term of terms) {
    if (p.includes(term)) s += 1;
    else if (f.tags.some((t) => t.kind === 'def' && t.name.toLowerCase().includes(term))) s += 0.5;
  }
  return s;
}

/**
 * Personalized PageRank over the reference graph. Focus paths, focus symbols (files defining
 * them) and goal terms personalise the teleport vector; focus paths also scale the final rank so
 * the focused module comes first. Sorted by rank, ties by path.
 */
export function rankFiles(
  index: RepoIndex,
  p: Personalization = {},
): { path: string; rank: number }[] {
  const symbolWeights = new Map<string, number>();
  for (const s of p.symbols ?? [])
    symbolWeights.set(s.name, (symbolWeights.get(s.name) ?? 0) + s.weight);
  const g = buildGraph(index, symbolWeights.size ? symbolWeights : undefined);
  const n = g.files.length;
  if (n === 0) return [];
  const terms = (p.terms ?? []).map((t) => t.toLowerCase()).filter((t) => t.length >= 3);
  const pathRules = (p.paths ?? []).map((r) => ({
    match: pathMatcher(r.pattern),
    weight: r.weight,
  }));

  const pathBoost = new Float64Array(n);
  const focus = new Float64Array(n);
  g.files.forEach((f, i) => {
    for (const r of pathRules) if (r.match(f.path)) pathBoost[i]! += r.weight;
    focus[i] = pathBoost[i]! + termScore(f, terms);
  });
  for (const [name, w] of symbolWeights) for (const i of g.definers.get(name) ?? []) focus[i]! += w;

  const maxFocus = Math.max(...focus);
  const pers = new Float64Array(n);
  if (maxFocus > 0) for (let i = 0; i < n; i++) pers[i] = focus[i]! + UNFOCUSED_SHARE * maxFocus;
  else pers.fill(1);
  const persSum = pers.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) pers[i]! /= persSum;

  // Compressed sparse rows with weights normalised per source: the iterations are tight loops.
  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) start[i + 1] = start[i]! + g.edges[i]!.size;
  const target = new Int32Array(start[n]!);
  const share = new Float64Array(start[n]!);
  for (let i = 0; i < n; i++) {
    let total = 0;
    for (const w of g.edges[i]!.values()) total += w;
    let k = start[i]!;
    for (const [j, w] of g.edges[i]!) {
      target[k] = j;
      share[k++] = w / total;
    }
  }
  let pr = Float64Array.from(pers);
  let next = new Float64Array(n);
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    next.fill(0);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const a = start[i]!;
      const b = start[i + 1]!;
      if (a === b) {
        dangling += pr[i]!;
        continue;
      }
      const p = DAMPING * pr[i]!;
      for (let k = a; k < b; k++) next[target[k]!]! += p * share[k]!;
    }
    let diff = 0;
    const teleport = DAMPING * dangling + (1 - DAMPING);
    for (let i = 0; i < n; i++) {
      next[i]! += teleport * pers[i]!;
      diff += Math.abs(next[i]! - pr[i]!);
    }
    [pr, next] = [next, pr];
    if (diff < TOLERANCE) break;
  }
  const out = g.files.map((f, i) => ({ path: f.path, rank: pr[i]! * (1 + pathBoost[i]!) }));
  out.sort((a, b) => b.rank - a.rank || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
