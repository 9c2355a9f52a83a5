import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileCostAt, fileCosts, type FlightPlan, type RepoIndex } from '@clippy/repomap';
import { fileKind, HEADER_CHARS, KIND_WEIGHT, testSubject } from './file-kinds.js';
import { goalIdentifiers, goalTerms, identifierTerms, termMatches } from './goal-terms.js';
import type { Planner, PlannerInput, PlannerOutcome } from './planner.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall } from './tools.js';

/** Neighbours shown as interfaces at most. */
const MAX_NEIGHBOURS = 10;
/** A file is pinned (L3/L4) only when it scores at least this share of the best file. */
const MIN_SHARE = 0.1;
/** A pinned file is shown in full (L4) when it scores at least this share of the best file. */
const CORE_SHARE = 0.5;
/** Share of the token budget the pinned files (L4 + L3) may take; the rest is structure. */
const PINNED_BUDGET_SHARE = 0.75;
/** A single file whose full text takes more than this share of the budget is shown as interface. */
const MAX_L4_SHARE = 0.4;
/** Below this utilisation the planner tries to zoom another candidate in. */
const GROW_BELOW = 0.7;
/** Focus weights: core files, then neighbours (PageRank personalisation in repomap). */
const CORE_WEIGHT = 10;
const NEIGHBOUR_WEIGHT = 3;
/** How much a term found in each field counts (a path names a module, a definition names code). */
const FIELD_WEIGHT = { path: 3, def: 2, doc: 1, ref: 0.5, body: 1 } as const;
/** Share of the weaker fields' evidence added to the strongest one. */
const OTHER_FIELDS_SHARE = 0.25;
/** BM25 term-frequency saturation and length normalisation for the body (the usual values). */
const BODY_K1 = 1.2;
const BODY_B = 0.75;
/** Files larger than this are not read for body words (generated or vendored, not what a goal names). */
const MAX_BODY_BYTES = 512 * 1024;
/** A goal's identifier (`sendFile`, `NO_COLOR`) defined in a file: the strongest evidence there is. */
const IDENT_DEF_WEIGHT = 4;
/** The same identifier written in a file's text. */
const IDENT_BODY_WEIGHT = 1.5;
/** Share of a test file's score credited to the source file it is named after. */
const TEST_SUBJECT_SHARE = 0.5;
/** Tokens of every file's path (the least a map shows of a repository), per index. */
const pathsCostMemo = new WeakMap<RepoIndex, number>();
function pathsCost(index: RepoIndex): number {
  let total = pathsCostMemo.get(index);
  if (total === undefined) {
    total = 0;
    for (const f of index.files) total += fileCostAt(index, f.path, 1);
    pathsCostMemo.set(index, total);
  }
  return total;
}

/** Files at L3/L4 at most: a small context the agent reads closely beats a large one it skims. */
const MAX_PINNED = 10;
/** The rest is pinned to one level when it fits in this share of the budget (room for rounding). */
const BASE_FIT_SHARE = 0.95;
/** Files added per growth step at most (each step re-renders the map). */
const MAX_GROW_PER_STEP = 8;
/** Growth fills pinned files up to this share of the budget. */
const GROW_TARGET = 0.85;

interface FileTerms {
  path: string;
  path_words: string[];
  def_words: string[];
  doc_words: string[];
  ref_words: string[];
  /** Distinct words of the file's text with their counts, and the text's length in words. */
  body: Map<string, number>;
  body_len: number;
  /** Lowercased identifiers of the text, whole (`sendfile`, `no_color`). */
  idents: Set<string>;
  head: string;
}

export interface Scored {
  path: string;
  score: number;
  /** Goal terms the file matched, for the reasoning. */
  matched: string[];
  /** Definitions whose names matched. */
  symbols: string[];
  /** Not hand-written source: ranked below the source that matches as well. */
  kind?: 'test' | 'doc' | 'generated';
  /** A matching test file named after this one. */
  tested_by?: string;
}

interface BodyWords {
  body: Map<string, number>;
  len: number;
  idents: Set<string>;
  head: string;
}

function bodyWords(index: RepoIndex, path: string, bytes: number): BodyWords {
  const body = new Map<string, number>();
  const idents = new Set<string>();
  if (bytes > MAX_BODY_BYTES) return { body, len: 0, idents, head: '' };
  let text = '';
  try {
    text = readFileSync(join(index.root, path), 'utf8');
  } catch {
    return { body, len: 0, idents, head: '' };
  }
  const words = identifierTerms(text);
  for (const w of words) body.set(w, (body.get(w) ?? 0) + 1);
  for (const m of text.matchAll(/[A-Za-z_$][\w$]{2,}/g)) idents.add(m[0].toLowerCase());
  return { body, len: words.length, idents, head: text.slice(0, HEADER_CHARS) };
}

function fileTerms(index: RepoIndex): FileTerms[] {
  return index.files.map((f) => ({
    ...(({ body, len, idents, head }) => ({ body, body_len: len, idents, head }))(
      bodyWords(index, f.path, f.bytes),
    ),
    path: f.path,
    path_words: identifierTerms(f.path),
    def_words: f.tags.filter((t) => t.kind === 'def').flatMap((t) => identifierTerms(t.name)),
    doc_words: f.tags.flatMap((t) => (t.doc ? identifierTerms(t.doc) : [])),
    ref_words: f.tags.filter((t) => t.kind === 'ref').flatMap((t) => identifierTerms(t.name)),
  }));
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

/**
 * Lexical relevance of every file to the terms (paths, definition names, doc comments,
 * references; rare terms weigh more), then spread one hop along the reference graph.
 */
export function scoreFiles(
  index: RepoIndex,
  graph: Map<string, Map<string, number>>,
  terms: string[],
  goal = '',
): Scored[] {
  const ft = fileTerms(index);
  const idents = goalIdentifiers(goal);
  const defNames = ft.map(
    (_, i) =>
      new Set(
        index.files[i]!.tags.filter((t) => t.kind === 'def').map((t) => t.name.toLowerCase()),
      ),
  );
  const n = ft.length;
  const avgLen = ft.reduce((a, f) => a + f.body_len, 0) / Math.max(1, n);
  /** Occurrences of a term in a body (prefix matches included). */
  const bodyHits = (t: string, f: FileTerms) => {
    let c = 0;
    for (const [w, k] of f.body) if (termMatches(t, w)) c += k;
    return c;
  };
  const bodyCounts = new Map<string, number[]>(
    terms.map((t) => [t, ft.map((f) => bodyHits(t, f))]),
  );
  const df = new Map<string, number>();
  for (const t of terms) {
    const counts = bodyCounts.get(t)!;
    df.set(
      t,
      ft.filter(
        (f, i) =>
          counts[i]! > 0 ||
          pathHits(t, f.path_words) > 0 ||
          [f.def_words, f.doc_words].some((w) => hits(t, w) > 0),
      ).length,
    );
  }
  const identDf = new Map(
    idents.map((id) => [
      id,
      {
        def: defNames.filter((d) => d.has(id)).length,
        body: ft.filter((f) => f.idents.has(id)).length,
      },
    ]),
  );
  const base = new Map<string, Scored>();
  const raw = new Map<string, number>();
  ft.forEach((f, fi) => {
    let score = 0;
    const matched: string[] = [];
    for (const t of terms) {
      // BM25's idf: a term in nearly every file ("log" in a logger) counts for almost nothing.
      const d = df.get(t) ?? 0;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      const tf = bodyCounts.get(t)![fi]!;
      const body =
        tf === 0
          ? 0
          : (tf * (BODY_K1 + 1)) /
            (tf + BODY_K1 * (1 - BODY_B + (BODY_B * f.body_len) / Math.max(1, avgLen)));
      const fields = [
        FIELD_WEIGHT.path * sat(pathHits(t, f.path_words)),
        FIELD_WEIGHT.def * sat(hits(t, f.def_words)),
        FIELD_WEIGHT.doc * sat(hits(t, f.doc_words)),
        FIELD_WEIGHT.ref * sat(hits(t, f.ref_words)),
        FIELD_WEIGHT.body * body,
      ];
      // The strongest field counts in full, the others a little: a common word found in every
      // field of a file must not outweigh a rare word of the goal.
      const strongest = Math.max(...fields);
      const s = strongest + OTHER_FIELDS_SHARE * (fields.reduce((a, b) => a + b, 0) - strongest);
      if (s > 0) matched.push(t);
      score += idf * s;
    }
    // Files naming several of the goal's terms beat files naming one term many times.
    if (terms.length > 1) score *= 1 + matched.length / terms.length;
    const file = index.files[fi]!;
    const definedIdents: string[] = [];
    for (const id of idents) {
      const df = identDf.get(id)!;
      if (defNames[fi]!.has(id)) {
        score += IDENT_DEF_WEIGHT * Math.log(1 + (n - df.def + 0.5) / (df.def + 0.5));
        definedIdents.push(id);
      } else if (f.idents.has(id))
        score += IDENT_BODY_WEIGHT * Math.log(1 + (n - df.body + 0.5) / (df.body + 0.5));
      if (f.idents.has(id) && !matched.includes(id)) matched.push(id);
    }
    const symbols = file.tags
      .filter(
        (t) =>
          t.kind === 'def' &&
          terms.some((term) => identifierTerms(t.name).some((w) => termMatches(term, w))),
      )
      .map((t) => t.name);
    raw.set(f.path, score);
    const kind = fileKind(f.path, f.head);
    base.set(f.path, {
      path: f.path,
      score: score * KIND_WEIGHT[kind],
      matched,
      symbols: [...new Set(symbols)].slice(0, 5),
      ...(kind !== 'source' ? { kind } : {}),
    });
  });
  // A matching test points at its subject: tests/test_core.py at core.py, a.test.ts at a.ts.
  const byStem = new Map<string, string[]>();
  for (const f of ft) {
    if (fileKind(f.path, f.head) !== 'source') continue;
    const stem = (f.path.split('/').at(-1) ?? '').replace(/\.[^.]+$/, '').toLowerCase();
    byStem.set(stem, [...(byStem.get(stem) ?? []), f.path]);
  }
  for (const f of ft) {
    const b = base.get(f.path)!;
    if (b.kind !== 'test') continue;
    const subject = testSubject(f.path)?.toLowerCase();
    const targets = subject ? (byStem.get(subject) ?? []) : [];
    for (const t of targets) {
      const target = base.get(t)!;
      target.score += (TEST_SUBJECT_SHARE * (raw.get(f.path) ?? 0)) / targets.length;
      target.tested_by ??= f.path;
    }
  }
  // One hop along references, both directions: code that the matches use or that uses them.
  const spread = new Map<string, number>();
  for (const [from, edges] of graph) {
    const max = Math.max(0, ...edges.values());
    if (max === 0) continue;
    for (const [to, w] of edges) {
      const share = w / max;
      spread.set(to, (spread.get(to) ?? 0) + 0.15 * share * (base.get(from)?.score ?? 0));
      spread.set(from, (spread.get(from) ?? 0) + 0.15 * share * (base.get(to)?.score ?? 0));
    }
  }
  return [...base.values()]
    .map((s) => ({ ...s, score: s.score + (spread.get(s.path) ?? 0) }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

/** Files that reference or are referenced by any of `core`, strongest link first. */
function neighboursOf(
  graph: Map<string, Map<string, number>>,
  core: Set<string>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [from, edges] of graph) {
    for (const [to, w] of edges) {
      if (core.has(from) && !core.has(to)) out.set(to, (out.get(to) ?? 0) + w);
      if (core.has(to) && !core.has(from)) out.set(from, (out.get(from) ?? 0) + w);
    }
  }
  return out;
}

interface Selection {
  l4: string[];
  l3: string[];
  /**
   * Pin every other file to one level: structure (L2) when all of it fits, else paths (L1), so
   * the ranked fill never raises files the planner did not choose to L3/L4.
   */
  base?: 1 | 2 | false;
}

/** The catch-all rule for "the rest as structure"; later rules override it. */
const BASE_PATTERN = '**';

function planFor(current: FlightPlan, sel: Selection): FlightPlan {
  const verbosity = [
    ...(sel.base ? [{ pattern: BASE_PATTERN, level: sel.base }] : []),
    ...sel.l3.map((p) => ({ pattern: p, level: 3 as const })),
    ...sel.l4.map((p) => ({ pattern: p, level: 4 as const })),
  ];
  const paths = [
    ...sel.l4.map((p) => ({ pattern: p, weight: CORE_WEIGHT })),
    ...sel.l3.map((p) => ({ pattern: p, weight: NEIGHBOUR_WEIGHT })),
  ];
  const next: FlightPlan = { ...current };
  delete next.verbosity;
  delete next.focus;
  if (paths.length) next.focus = { paths };
  if (verbosity.length) next.verbosity = verbosity;
  return next;
}

function selectionOf(plan: FlightPlan): Selection {
  const rules = plan.verbosity ?? [];
  return {
    l4: rules.filter((r) => r.level === 4).map((r) => r.pattern),
    l3: rules.filter((r) => r.level === 3).map((r) => r.pattern),
    base:
      (rules.find((r) => r.pattern === BASE_PATTERN && (r.level === 1 || r.level === 2))?.level as
        1 | 2 | undefined) ?? false,
  };
}

/** A plan as JSON with sorted keys, so equal plans compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Glob characters: a path with one of them is escaped so the rule names exactly that file. */
function literal(path: string): string {
  return path.replace(/[*?[\]{}()!+@]/g, (c) => `\\${c}`);
}

/**
 * The offline planner: deterministic, no network. It reads the goal's terms, scores files and
 * their neighbours, and drives the same tools as the Gemini planner.
 */
export class OfflinePlanner implements Planner {
  readonly kind = 'offline' as const;
  readonly model = 'offline';
  private scored: Scored[] | undefined;
  private terms: string[] = [];
  /** Paths the planner already moved down for the budget: never promoted again (no oscillation). */
  private readonly demoted = new Set<string>();

  private rescore(input: PlannerInput, feedback: string[]): void {
    const terms = goalTerms([input.state.goal, ...feedback].join(' '));
    if (this.scored && terms.join(' ') === this.terms.join(' ')) return;
    this.terms = terms;
    this.scored = scoreFiles(
      input.index,
      input.graph,
      terms,
      [input.state.goal, ...feedback].join(' '),
    );
  }

  private feedbackSeen: string[] = [];
  /** Plans the user rejected (canonical JSON): never proposed again. */
  private readonly rejectedPlans = new Set<string>();
  /** Files a rejected step raised to L3/L4: the user did not want them, so they stay down. */
  private readonly rejectedFiles = new Set<string>();
  /** Said once in the next reasoning: what the user rejected. */
  private rejectionNote = '';

  /** Remembers a rejected step: its plan is not proposed again, the files it raised stay down. */
  private noteRejection(input: PlannerInput): void {
    const r = input.rejection;
    if (!r) return;
    this.rejectedPlans.add(canonical(r.rejectedPlan));
    const before = selectionOf(input.state.flight_plan);
    const kept = new Set([...before.l4, ...before.l3]);
    const after = selectionOf(r.rejectedPlan);
    for (const p of [...after.l4, ...after.l3]) if (!kept.has(p)) this.rejectedFiles.add(p);
    this.rejectionNote = `Step ${r.step} was rejected${r.reason ? ` ("${r.reason}")` : ''}: not raising ${[...this.rejectedFiles].join(', ') || 'those files'} again. `;
  }

  /** An update_flight_plan call, or null when the user already rejected that plan. */
  private propose(plan: FlightPlan, reasoning: string): PlannerOutcome | null {
    if (this.rejectedPlans.has(canonical(plan))) return null;
    const note = this.rejectionNote;
    this.rejectionNote = '';
    const call: ToolCall = {
      name: UPDATE_FLIGHT_PLAN,
      args: {
        reasoning: `${note}${reasoning}`,
        updates: { focus: plan.focus ?? null, verbosity: plan.verbosity ?? null },
      },
    };
    return { kind: 'calls', calls: [call], cost: 0 };
  }

  /**
   * The first plan: the best matches in detail — the best one in full, the others as interfaces,
   * then as many of them in full as the room allows — their neighbours as interfaces in any
   * slot left, the rest as structure or paths.
   */
  private initialSelection(input: PlannerInput): Selection {
    const budget = input.state.budget.token_budget;
    const scored = (this.scored ?? []).filter((s) => s.score > 0);
    const top = scored[0]?.score ?? 0;
    const restPaths = pathsCost(input.index);
    // The rest as paths is the least the map shows; the detailed files get what that leaves.
    const limit =
      restPaths <= budget * (BASE_FIT_SHARE - PINNED_BUDGET_SHARE)
        ? budget * BASE_FIT_SHARE - restPaths
        : budget * PINNED_BUDGET_SHARE;
    const maxL4 = budget * MAX_L4_SHARE;
    const picked: {
      path: string;
      level: 3 | 4;
      costs: ReturnType<typeof fileCosts>;
      score: number;
    }[] = [];
    let used = 0;
    for (const s of scored) {
      if (picked.length >= MAX_PINNED || s.score < top * MIN_SHARE) break;
      if (this.rejectedFiles.has(literal(s.path))) continue;
      const c = fileCosts(input.index, s.path);
      // The best match that fits in full is shown in full; the others as interfaces first, so
      // more of the matches show.
      const full = !picked.some((p) => p.level === 4) && s.score >= top * CORE_SHARE;
      const level: 3 | 4 = (full && c.l4 <= maxL4 && used + c.l4 <= limit) || c.l3 <= c.l1 ? 4 : 3;
      const cost = level === 4 ? c.l4 : c.l3;
      if ((level === 4 && c.l4 > maxL4) || used + cost > limit) continue;
      picked.push({ path: s.path, level, costs: c, score: s.score });
      used += cost;
    }
    // Room left: the strongest matches in full, best first.
    for (const p of picked) {
      if (p.level === 4 || p.score < top * CORE_SHARE || p.costs.l4 > maxL4) continue;
      if (used - p.costs.l3 + p.costs.l4 > limit) continue;
      used += p.costs.l4 - p.costs.l3;
      p.level = 4;
    }
    const l4 = picked.filter((p) => p.level === 4).map((p) => p.path);
    const l3 = picked.filter((p) => p.level === 3).map((p) => p.path);
    const core = new Set([...l4, ...l3]);
    const links = neighboursOf(input.graph, core);
    const scoreOf = new Map(scored.map((s) => [s.path, s.score]));
    const candidates = [...links.keys()]
      .map((p) => ({ p, w: (links.get(p) ?? 0) * (1 + (scoreOf.get(p) ?? 0)) }))
      .sort((a, b) => b.w - a.w || (a.p < b.p ? -1 : 1))
      .map((x) => x.p);
    let neighbours = 0;
    for (const p of candidates) {
      if (neighbours >= MAX_NEIGHBOURS || l4.length + l3.length >= MAX_PINNED) break;
      if (this.rejectedFiles.has(literal(p))) continue;
      const c = fileCosts(input.index, p);
      if (c.l3 <= c.l1 || used + c.l3 > limit) continue;
      l3.push(p);
      used += c.l3;
      neighbours++;
    }
    // The rest as structure when it all fits; otherwise repomap's ranked fill decides the rest.
    const pinned = new Set([...l4, ...l3]);
    let rest2 = 0;
    let rest1 = 0;
    for (const f of input.index.files) {
      if (pinned.has(f.path)) continue;
      rest1 += fileCostAt(input.index, f.path, 1);
      // Past the budget at L2 already: no need to count further.
      if (used + rest2 <= budget) rest2 += fileCostAt(input.index, f.path, 2);
    }
    const fits = (rest: number) => used + rest <= budget * BASE_FIT_SHARE;
    const base = l4.length + l3.length === 0 ? false : fits(rest2) ? 2 : fits(rest1) ? 1 : false;
    return { l4, l3, base };
  }

  private reasonFor(sel: Selection): string {
    const scored = new Map((this.scored ?? []).map((s) => [s.path, s]));
    const why = (p: string) => {
      const s = scored.get(p);
      if (!s || s.matched.length === 0) return `${p} (linked by references)`;
      return `${p} (matches ${s.matched.join(', ')}${s.symbols.length ? `; defines ${s.symbols.slice(0, 3).join(', ')}` : ''})`;
    };
    const parts = [
      `Best matches for "${this.terms.join(' ')}" in full, their neighbours as interfaces.`,
    ];
    if (sel.l4.length) parts.push(`Full text: ${sel.l4.map(why).join(', ')}.`);
    if (sel.l3.length)
      parts.push(
        `Interfaces for their neighbours: ${sel.l3.slice(0, 6).join(', ')}${sel.l3.length > 6 ? ` and ${sel.l3.length - 6} more` : ''}.`,
      );
    return parts.join(' ');
  }

  async next(input: PlannerInput): Promise<PlannerOutcome> {
    const newFeedback = input.feedback.filter((f) => !this.feedbackSeen.includes(f));
    this.feedbackSeen.push(...newFeedback);
    this.rescore(input, this.feedbackSeen);
    this.noteRejection(input);
    const plan = input.state.flight_plan;
    const current = selectionOf(plan);
    const budget = input.state.budget.token_budget;
    const map = input.map;

    if (input.step === 1 || newFeedback.length > 0) {
      const sel = this.initialSelection(input);
      const next = planFor(plan, { ...sel, l4: sel.l4.map(literal), l3: sel.l3.map(literal) });
      if (JSON.stringify(next) !== JSON.stringify(plan)) {
        const reasoning = `${newFeedback.length ? `Feedback: "${newFeedback.join('; ')}". ` : ''}${this.reasonFor(sel)}`;
        const proposal = this.propose(next, reasoning);
        if (proposal) return proposal;
      }
    }

    if (map.overBudget) {
      // Too big: the weakest full-text file becomes an interface, else the weakest interface goes.
      const order = new Map((this.scored ?? []).map((s, i) => [literal(s.path), i]));
      const weakest = (list: string[]) =>
        [...list].sort((a, b) => (order.get(b) ?? 1e9) - (order.get(a) ?? 1e9))[0];
      const l4 = weakest(current.l4);
      const sel: Selection = { ...current, l4: [...current.l4], l3: [...current.l3] };
      let reasoning: string;
      if (current.base) {
        sel.base = false;
        reasoning = `The map is over budget (${map.totalTokens} of ${budget} tokens): the rest of the repository goes back to the ranked fill instead of structure for every file.`;
      } else if (l4 && current.l4.length > 1) {
        sel.l4 = sel.l4.filter((p) => p !== l4);
        sel.l3 = [...sel.l3, l4];
        this.demoted.add(l4);
        reasoning = `The map is over budget (${map.totalTokens} of ${budget} tokens): showing ${l4} as an interface instead of full text.`;
      } else {
        const l3 = weakest(current.l3);
        if (!l3) return this.finalize(input);
        sel.l3 = sel.l3.filter((p) => p !== l3);
        this.demoted.add(l3);
        reasoning = `The map is over budget (${map.totalTokens} of ${budget} tokens): ${l3} goes back to structure.`;
      }
      const proposal = this.propose(planFor(plan, sel), reasoning);
      if (proposal) return proposal;
      return this.finalize(input);
    }

    if (map.totalTokens < budget * GROW_BELOW) {
      // Room left: zoom in on the next-best matches not shown in detail yet, up to GROW_TARGET.
      const pinned = new Set([...current.l4, ...current.l3]);
      const top = this.scored?.[0]?.score ?? 0;
      const tokensNow = new Map(map.files.map((f) => [f.path, f.tokens]));
      const sel: Selection = { ...current, l4: [...current.l4], l3: [...current.l3] };
      const added: string[] = [];
      let used = map.totalTokens;
      for (const s of this.scored ?? []) {
        if (
          added.length >= MAX_GROW_PER_STEP ||
          current.l4.length + current.l3.length + added.length >= MAX_PINNED ||
          s.score <= 0 ||
          s.score < top * MIN_SHARE
        )
          break;
        const pattern = literal(s.path);
        if (pinned.has(pattern) || this.demoted.has(pattern) || this.rejectedFiles.has(pattern))
          continue;
        const c = fileCosts(input.index, s.path);
        const now = tokensNow.get(s.path) ?? 0;
        const limit = budget * GROW_TARGET;
        const level =
          c.l4 <= budget * MAX_L4_SHARE && used - now + c.l4 <= limit
            ? 4
            : used - now + c.l3 <= limit && c.l3 > now
              ? 3
              : 0;
        this.demoted.add(pattern);
        if (level === 0) continue;
        (level === 4 ? sel.l4 : sel.l3).push(pattern);
        used += (level === 4 ? c.l4 : c.l3) - now;
        added.push(`${s.path} at L${level} (${s.matched.join(', ') || 'linked'})`);
      }
      if (added.length) {
        const reasoning = `Room left (${map.totalTokens} of ${budget} tokens): adding the next-best matches. ${added.join('; ')}.`;
        const proposal = this.propose(planFor(plan, sel), reasoning);
        if (proposal) return proposal;
      }
    }
    return this.finalize(input);
  }

  /** The pinned files, most likely to need changing first, each with why (one line each). */
  private rankedReasons(sel: Selection): string[] {
    const pinned = new Set([...sel.l4, ...sel.l3]);
    const order = (this.scored ?? []).filter((s) => pinned.has(literal(s.path)));
    const core = order.filter((s) => s.matched.length > 0).map((s) => s.path);
    return order.map((s, i) => {
      const why: string[] = [];
      if (s.symbols.length) why.push(`defines ${s.symbols.slice(0, 3).join(', ')}`);
      if (s.matched.length) why.push(`matches ${s.matched.join(', ')}`);
      if (s.tested_by) why.push(`${s.tested_by} tests it`);
      if (s.kind) why.push(`a ${s.kind} file`);
      if (why.length === 0) why.push(`linked by references to ${core[0] ?? 'the matches'}`);
      return `${i + 1}. ${s.path} (${sel.l4.includes(literal(s.path)) ? 'L4' : 'L3'}): ${why.join('; ')}`;
    });
  }

  private finalize(input: PlannerInput): PlannerOutcome {
    const sel = selectionOf(input.state.flight_plan);
    const map = input.map;
    const none =
      this.rejectedFiles.size > 0
        ? `No other file to raise for the goal's terms (${this.terms.join(', ') || 'none'})`
        : `No file matched the goal's terms (${this.terms.join(', ') || 'none'})`;
    const summary =
      sel.l4.length + sel.l3.length === 0
        ? `${none}; the map is the ranked structure of the repository (${map.totalTokens} tokens).`
        : `Context ready: ${sel.l4.length} in full, ${sel.l3.length} as interfaces, ${map.totalTokens} tokens. Full text: ${sel.l4.join(', ') || '(none)'}. Interfaces: ${sel.l3.join(', ') || '(none)'}.\nMost likely to change, first to last:\n${this.rankedReasons(sel).join('\n')}`;
    const note = this.rejectionNote;
    this.rejectionNote = '';
    return {
      kind: 'calls',
      calls: [{ name: FINALIZE_CONTEXT, args: { summary: `${note}${summary}` } }],
      cost: 0,
    };
  }
}
