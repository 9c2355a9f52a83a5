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

/**
 * The reference graph in link form: file -> names it refers to -> files defining them. An edge
 * i -> d (weight w) exists for every name i refers to and d (≠ i) defines. Names defined in many
 * files would make that explicit graph huge (1.4 million edges for a 10,000-file npm tree), so
 * PageRank sends rank through the names instead: the same sums, in O(references + definitions)
 * per iteration.
 */
interface Links {
  files: IndexedFile[];
  definers: Map<string, number[]>;
  /** Linkable (defined) names by slot. */
  names: string[];
  /** Per name slot (CSR): the files defining it. */
  defStart: Int32Array;
  defFile: Int32Array;
  /** Per file (CSR): the name slots it refers to, in first-reference order, and how often. */
  refStart: Int32Array;
  refSlot: Int32Array;
  refCount: Float64Array;
  /** Per reference: whether the referring file defines the name too (no edge to itself). */
  refSelf: Uint8Array;
}

const linksCache = new WeakMap<RepoIndex, Links>();

function buildLinks(index: RepoIndex): Links {
  const cached = linksCache.get(index);
  if (cached) return cached;
  const files = index.files;
  const definers = new Map<string, number[]>();
  const defined: Set<string>[] = files.map((f, i) => {
    const seen = new Set<string>();
    for (const t of f.tags) {
      if (t.kind !== 'def' || NON_LINKING_DEFS.has(t.type) || seen.has(t.name)) continue;
      seen.add(t.name);
      let list = definers.get(t.name);
      if (!list) definers.set(t.name, (list = []));
      list.push(i);
    }
    return seen;
  });
  const slotOf = new Map<string, number>();
  const names: string[] = [];
  const nameDefiners: number[][] = [];
  const refStart = new Int32Array(files.length + 1);
  const slots: number[] = [];
  const counts: number[] = [];
  const selfs: number[] = [];
  files.forEach((f, i) => {
    const perName = new Map<string, number>();
    for (const t of f.tags) {
      if (t.kind === 'ref' || t.type === 'impl') {
        perName.set(t.name, (perName.get(t.name) ?? 0) + (t.count ?? 1));
      }
    }
    for (const [name, count] of perName) {
      const defs = definers.get(name);
      if (!defs) continue;
      let slot = slotOf.get(name);
      if (slot === undefined) {
        slot = names.length;
        slotOf.set(name, slot);
        names.push(name);
        nameDefiners.push(defs);
      }
      slots.push(slot);
      counts.push(count);
      selfs.push(defined[i]!.has(name) ? 1 : 0);
    }
    refStart[i + 1] = slots.length;
  });
  const defStart = new Int32Array(names.length + 1);
  nameDefiners.forEach((d, slot) => (defStart[slot + 1] = defStart[slot]! + d.length));
  const defFile = new Int32Array(defStart[names.length]!);
  nameDefiners.forEach((d, slot) => defFile.set(d, defStart[slot]!));
  const links: Links = {
    files,
    definers,
    names,
    defStart,
    defFile,
    refStart,
    refSlot: Int32Array.from(slots),
    refCount: Float64Array.from(counts),
    refSelf: Uint8Array.from(selfs),
  };
  linksCache.set(index, links);
  return links;
}

function definerCount(g: Links, slot: number): number {
  return g.defStart[slot + 1]! - g.defStart[slot]!;
}

/** Weight of every reference (file i refers to a name), per edge to each other definer. */
function referenceWeights(g: Links, symbolBoost?: Map<string, number>): Float64Array {
  const w = new Float64Array(g.refSlot.length);
  const perSlot = g.names.map(
    (name, s) => nameWeight(name, definerCount(g, s)) * (symbolBoost?.get(name) ?? 1),
  );
  for (let k = 0; k < w.length; k++) w[k] = perSlot[g.refSlot[k]!]! * Math.sqrt(g.refCount[k]!);
  return w;
}

/** file -> (file it references -> weight), from definition/reference tags. */
export function referenceGraph(index: RepoIndex): Map<string, Map<string, number>> {
  const g = buildLinks(index);
  const weights = referenceWeights(g);
  const out = new Map<string, Map<string, number>>();
  g.files.forEach((f, i) => {
    const edges = new Map<number, number>();
    for (let k = g.refStart[i]!; k < g.refStart[i + 1]!; k++) {
      const slot = g.refSlot[k]!;
      for (let at = g.defStart[slot]!; at < g.defStart[slot + 1]!; at++) {
        const d = g.defFile[at]!;
        if (d !== i) edges.set(d, (edges.get(d) ?? 0) + weights[k]!);
      }
    }
    const m = new Map<string, number>();
    for (const [j, w] of [...edges].sort((a, b) => a[0] - b[0])) m.set(g.files[j]!.path, w);
    out.set(f.path, m);
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
  const g = buildLinks(index);
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

  let maxFocus = 0;
  for (const v of focus) if (v > maxFocus) maxFocus = v;
  const pers = new Float64Array(n);
  if (maxFocus > 0) for (let i = 0; i < n; i++) pers[i] = focus[i]! + UNFOCUSED_SHARE * maxFocus;
  else pers.fill(1);
  const persSum = pers.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) pers[i]! /= persSum;

  // Each reference's share of its file's outgoing rank: its weight times the edges it makes
  // (one per other definer), over the file's total. A file with no edges is dangling.
  const weights = referenceWeights(g, symbolWeights.size ? symbolWeights : undefined);
  const coef = new Float64Array(weights.length);
  const dangling = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const a = g.refStart[i]!;
    const b = g.refStart[i + 1]!;
    let total = 0;
    for (let k = a; k < b; k++) {
      total += weights[k]! * (definerCount(g, g.refSlot[k]!) - g.refSelf[k]!);
    }
    if (!(total > 0)) dangling[i] = 1;
    else for (let k = a; k < b; k++) coef[k] = weights[k]! / total;
  }
  const names = g.names.length;
  const { defStart, defFile } = g;
  const hub = new Float64Array(names);

  let pr = Float64Array.from(pers);
  let next = new Float64Array(n);
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    hub.fill(0);
    next.fill(0);
    let lost = 0;
    // Rank flows from each file into the names it refers to, then to every definer of the name
    // but the referring file itself (its own share is taken back).
    for (let i = 0; i < n; i++) {
      if (dangling[i]) {
        lost += pr[i]!;
        continue;
      }
      const p = DAMPING * pr[i]!;
      for (let k = g.refStart[i]!, b = g.refStart[i + 1]!; k < b; k++) {
        const c = p * coef[k]!;
        hub[g.refSlot[k]!]! += c;
        if (g.refSelf[k]) next[i]! -= c;
      }
    }
    for (let s = 0; s < names; s++) {
      const h = hub[s]!;
      if (h === 0) continue;
      for (let k = defStart[s]!, b = defStart[s + 1]!; k < b; k++) next[defFile[k]!]! += h;
    }
    let diff = 0;
    const teleport = DAMPING * lost + (1 - DAMPING);
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
