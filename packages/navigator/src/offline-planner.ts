import {
  fileCostAt,
  fileCosts,
  type FlightPlan,
  type MapResult,
  type RepoIndex,
} from '@clippy/repomap';
import { scoreFiles, type Scored } from './file-scores.js';
import { kindWeights } from './file-kinds.js';
import { goalTerms, termLabels } from './goal-terms.js';
import type { Planner, PlannerInput, PlannerOutcome } from './planner.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall } from './tools.js';

export { scoreFiles, type Scored };

/** Neighbours shown as interfaces at most (they fill the slots the matches leave, up to MIN_PINNED). */
const MAX_NEIGHBOURS = 10;
/** A file is pinned (L3/L4) only when it scores at least this share of the best file. */
const MIN_SHARE = 0.1;
/** A pinned file is shown in full (L4) when it scores at least this share of the best file. */
const CORE_SHARE = 0.5;
/** Share of the token budget the pinned files (L4 + L3) may take; the rest is structure. */
const PINNED_BUDGET_SHARE = 0.75;
/** A single file whose full text takes more than this share of the budget is shown as interface. */
const MAX_L4_SHARE = 0.4;
/**
 * A file whose interface takes more than this share of the budget is shown as its structure
 * with only the definitions matching the goal as interfaces (when some match).
 */
const MAX_L3_SHARE = 0.25;
/** Below this utilisation the planner tries to zoom another candidate in. */
const GROW_BELOW = 0.7;
/** Focus weights: core files, then neighbours (PageRank personalisation in repomap). */
const CORE_WEIGHT = 10;
const NEIGHBOUR_WEIGHT = 3;
/** Tokens of each file's path line (L1), per index: counted once for the plan's sums. */
const pathCostsMemo = new WeakMap<RepoIndex, Map<string, number>>();
function pathCosts(index: RepoIndex): Map<string, number> {
  let costs = pathCostsMemo.get(index);
  if (!costs) {
    costs = new Map(index.files.map((f) => [f.path, fileCostAt(index, f.path, 1)]));
    pathCostsMemo.set(index, costs);
  }
  return costs;
}

/** Tokens of every file's path (the least a map shows of a repository). */
function pathsCost(index: RepoIndex): number {
  let total = 0;
  for (const c of pathCosts(index).values()) total += c;
  return total;
}

/**
 * Files at L3/L4: the best MIN_PINNED matches, and past them up to MAX_PINNED while they score
 * at least CLOSE_SHARE of the best — a goal with one clear answer gets a small context, a
 * vague one a wider look. A small context the agent reads closely beats a large one it skims.
 */
const MIN_PINNED = 8;
const MAX_PINNED = 15;
const CLOSE_SHARE = 0.3;
/** The rest is pinned to one level when it fits in this share of the budget (room for rounding). */
const BASE_FIT_SHARE = 0.95;
/** Files added per growth step at most (each step re-renders the map). */
const MAX_GROW_PER_STEP = 8;
/** Growth fills pinned files up to this share of the budget. */
const GROW_TARGET = 0.85;

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
   * Every other file: pinned at structure (L2) when all of it fits, else at paths (L1); else
   * ('ranked') left to the ranked fill but never above structure — either way no file the
   * planner did not choose gets L3/L4. False: no rule (the ranked fill decides everything).
   */
  base?: 1 | 2 | 'ranked' | false;
  /**
   * L3 files too big to show whole as interfaces: their structure, with the definitions that
   * match the goal as interfaces (pattern → those definitions' names).
   */
  focused?: Record<string, string[]>;
}

/** The catch-all rule for "the rest as structure"; later rules override it. */
const BASE_PATTERN = '**';
/** When the rest does not fit pinned, the ranked fill shows it at structure at most. */
const RANKED_MAX_LEVEL = 2 as const;

function planFor(current: FlightPlan, sel: Selection): FlightPlan {
  const verbosity = [
    ...(sel.base === 'ranked'
      ? [{ pattern: BASE_PATTERN, max_level: RANKED_MAX_LEVEL }]
      : sel.base
        ? [{ pattern: BASE_PATTERN, level: sel.base }]
        : []),
    ...sel.l3.map((p) => ({ pattern: p, level: 3 as const })),
    ...sel.l4.map((p) => ({ pattern: p, level: 4 as const })),
    ...Object.entries(sel.focused ?? {})
      .filter(([p]) => sel.l3.includes(p))
      .map(([p, names]) => ({ pattern: p, sections: focusedSections(names) })),
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
    focused: Object.fromEntries(
      rules
        .filter((r) => r.sections?.[0]?.pattern === ALL_SECTIONS)
        .map((r) => [
          r.pattern,
          r.sections!.slice(1).map((x) => x.pattern.replace(/\\(.)/g, '$1')),
        ]),
    ),
    base: rules.some((r) => r.pattern === BASE_PATTERN && r.max_level === RANKED_MAX_LEVEL)
      ? 'ranked'
      : ((rules.find((r) => r.pattern === BASE_PATTERN && (r.level === 1 || r.level === 2))
          ?.level as 1 | 2 | undefined) ?? false),
  };
}

/** Every definition of a file, as a section rule names them. */
const ALL_SECTIONS = '*';

/** Section rules of a focused file: every definition as structure, the named ones as interfaces. */
function focusedSections(names: string[]): { pattern: string; level: 2 | 3 }[] {
  return [
    { pattern: ALL_SECTIONS, level: 2 },
    ...names.map((n) => ({ pattern: literal(n), level: 3 as const })),
  ];
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
  /** Its first plan comes from the index and the goal: the starting map is not needed. */
  readonly needsFirstMap = false;
  private scored: Scored[] | undefined;
  private terms: string[] = [];
  /** Paths the planner already moved down for the budget: never promoted again (no oscillation). */
  private readonly demoted = new Set<string>();

  /** How the goal and feedback spell the terms (reasons show words, not stems). */
  private labels = new Map<string, string>();

  /** Terms or identifiers as the user wrote them. */
  private words(terms: string[], sep = ', '): string {
    return terms.map((t) => this.labels.get(t) ?? t).join(sep);
  }

  private rescore(input: PlannerInput, feedback: string[]): void {
    const terms = goalTerms([input.state.goal, ...feedback].join(' '));
    if (this.scored && terms.join(' ') === this.terms.join(' ')) return;
    this.terms = terms;
    this.labels = termLabels([input.state.goal, ...feedback].join(' '));
    this.scored = scoreFiles(
      input.index,
      input.graph,
      terms,
      [input.state.goal, ...feedback].join(' '),
    );
  }

  /**
   * Generated files are regenerated, not edited: they get no detail (they stay structure)
   * unless the goal is about them ("the generated client …").
   */
  private leftOut(s: Scored | undefined): boolean {
    return s?.kind === 'generated' && kindWeights(this.terms).generated !== 1;
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
      /** Definitions shown as interfaces in a focused file. */
      focus?: string[];
    }[] = [];
    let used = 0;
    for (const s of scored) {
      if (picked.length >= MAX_PINNED || s.score < top * MIN_SHARE) break;
      if (picked.length >= MIN_PINNED && s.score < top * CLOSE_SHARE) break;
      if (this.rejectedFiles.has(literal(s.path)) || this.leftOut(s)) continue;
      const c = fileCosts(input.index, s.path);
      // The best match that fits in full is shown in full; the others as interfaces first, so
      // more of the matches show.
      const full = !picked.some((p) => p.level === 4) && s.score >= top * CORE_SHARE;
      const level: 3 | 4 = (full && c.l4 <= maxL4 && used + c.l4 <= limit) || c.l3 <= c.l1 ? 4 : 3;
      const focus = level === 3 && c.l3 > budget * MAX_L3_SHARE && s.symbols.length > 0;
      const cost =
        level === 4
          ? c.l4
          : focus
            ? fileCostAt(input.index, s.path, 3, focusedSections(s.symbols))
            : c.l3;
      if ((level === 4 && c.l4 > maxL4) || used + cost > limit) continue;
      picked.push({
        path: s.path,
        level,
        costs: { ...c, l3: cost },
        score: s.score,
        ...(focus ? { focus: s.symbols } : {}),
      });
      used += cost;
    }
    // Room left: the strongest matches in full, best first.
    for (const p of picked) {
      if (p.level === 4 || p.focus || p.score < top * CORE_SHARE || p.costs.l4 > maxL4) continue;
      if (used - p.costs.l3 + p.costs.l4 > limit) continue;
      used += p.costs.l4 - p.costs.l3;
      p.level = 4;
    }
    const l4 = picked.filter((p) => p.level === 4).map((p) => p.path);
    const l3 = picked.filter((p) => p.level === 3).map((p) => p.path);
    const core = new Set([...l4, ...l3]);
    const links = neighboursOf(input.graph, core);
    const scoreOf = new Map(scored.map((s) => [s.path, s.score]));
    const byPath = new Map((this.scored ?? []).map((s) => [s.path, s]));
    const candidates = [...links.keys()]
      .map((p) => ({ p, w: (links.get(p) ?? 0) * (1 + (scoreOf.get(p) ?? 0)) }))
      .sort((a, b) => b.w - a.w || (a.p < b.p ? -1 : 1))
      .map((x) => x.p);
    let neighbours = 0;
    for (const p of candidates) {
      if (neighbours >= MAX_NEIGHBOURS || l4.length + l3.length >= MIN_PINNED) break;
      if (this.rejectedFiles.has(literal(p)) || this.leftOut(byPath.get(p))) continue;
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
      rest1 += pathCosts(input.index).get(f.path) ?? 0;
      // Past the budget at L2 already: no need to count further.
      if (used + rest2 <= budget) rest2 += fileCostAt(input.index, f.path, 2);
    }
    const fits = (rest: number) => used + rest <= budget * BASE_FIT_SHARE;
    const base = l4.length + l3.length === 0 ? false : fits(rest2) ? 2 : fits(rest1) ? 1 : 'ranked';
    const focused = Object.fromEntries(
      picked.filter((p) => p.focus).map((p) => [p.path, p.focus!]),
    );
    return { l4, l3, base, focused };
  }

  private reasonFor(sel: Selection): string {
    const scored = new Map((this.scored ?? []).map((s) => [s.path, s]));
    const why = (p: string) => {
      const s = scored.get(p);
      if (!s || s.matched.length === 0) return `${p} (linked by references)`;
      return `${p} (matches ${this.words(s.matched)}${s.symbols.length ? `; defines ${s.symbols.slice(0, 3).join(', ')}` : ''})`;
    };
    const list = (ps: string[]) =>
      `${ps.slice(0, 6).join(', ')}${ps.length > 6 ? ` and ${ps.length - 6} more` : ''}`;
    const matches = sel.l3.filter((p) => (scored.get(p)?.matched.length ?? 0) > 0);
    const neighbours = sel.l3.filter((p) => !matches.includes(p));
    const parts = [
      `Best matches for "${this.words(this.terms, ' ')}" in detail, their neighbours as interfaces.`,
    ];
    if (sel.l4.length) parts.push(`Full text: ${sel.l4.map(why).join(', ')}.`);
    if (matches.length) parts.push(`Interfaces of further matches: ${list(matches)}.`);
    if (neighbours.length) parts.push(`Interfaces of their neighbours: ${list(neighbours)}.`);
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

    if (input.step === 1 || newFeedback.length > 0) {
      const sel = this.initialSelection(input);
      const next = planFor(plan, {
        ...sel,
        l4: sel.l4.map(literal),
        l3: sel.l3.map(literal),
        focused: Object.fromEntries(
          Object.entries(sel.focused ?? {}).map(([p, names]) => [literal(p), names]),
        ),
      });
      if (JSON.stringify(next) !== JSON.stringify(plan)) {
        const reasoning = `${newFeedback.length ? `Feedback: "${newFeedback.join('; ')}". ` : ''}${this.reasonFor(sel)}`;
        const proposal = this.propose(next, reasoning);
        if (proposal) return proposal;
      }
    }

    // No new plan: what follows reads the map (rendered now if the first step started without it).
    const map = input.ensureMap ? await input.ensureMap() : input.map;
    if (map.overBudget) {
      // Too big: the weakest full-text file becomes an interface, else the weakest interface goes.
      const order = new Map((this.scored ?? []).map((s, i) => [literal(s.path), i]));
      const weakest = (list: string[]) =>
        [...list].sort((a, b) => (order.get(b) ?? 1e9) - (order.get(a) ?? 1e9))[0];
      const l4 = weakest(current.l4);
      const sel: Selection = { ...current, l4: [...current.l4], l3: [...current.l3] };
      let reasoning: string;
      if (current.base === 1 || current.base === 2) {
        sel.base = 'ranked';
        reasoning = `The map is over budget (${map.totalTokens} of ${budget} tokens): the rest of the repository goes back to the ranked fill (structure at most) instead of one level for every file.`;
      } else if (l4 && current.l4.length > 1) {
        sel.l4 = sel.l4.filter((p) => p !== l4);
        sel.l3 = [...sel.l3, l4];
        this.demoted.add(l4);
        reasoning = `The map is over budget (${map.totalTokens} of ${budget} tokens): showing ${l4} as an interface instead of full text.`;
      } else {
        const l3 = weakest(current.l3);
        if (!l3) return this.finalize(input, map);
        sel.l3 = sel.l3.filter((p) => p !== l3);
        this.demoted.add(l3);
        reasoning = `The map is over budget (${map.totalTokens} of ${budget} tokens): ${l3} goes back to structure.`;
      }
      const proposal = this.propose(planFor(plan, sel), reasoning);
      if (proposal) return proposal;
      return this.finalize(input, map);
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
          s.score < top * MIN_SHARE ||
          (current.l4.length + current.l3.length + added.length >= MIN_PINNED &&
            s.score < top * CLOSE_SHARE)
        )
          break;
        const pattern = literal(s.path);
        if (
          pinned.has(pattern) ||
          this.demoted.has(pattern) ||
          this.rejectedFiles.has(pattern) ||
          this.leftOut(s)
        )
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
        added.push(`${s.path} at L${level} (${this.words(s.matched) || 'linked'})`);
      }
      if (added.length) {
        const reasoning = `Room left (${map.totalTokens} of ${budget} tokens): adding the next-best matches. ${added.join('; ')}.`;
        const proposal = this.propose(planFor(plan, sel), reasoning);
        if (proposal) return proposal;
      }
    }
    return this.finalize(input, map);
  }

  /** The pinned files, most likely to need changing first, each with why (one line each). */
  private rankedReasons(sel: Selection): string[] {
    const pinned = new Set([...sel.l4, ...sel.l3]);
    const order = (this.scored ?? []).filter((s) => pinned.has(literal(s.path)));
    const core = order.filter((s) => s.matched.length > 0).map((s) => s.path);
    return order.map((s, i) => {
      const why: string[] = [];
      if (s.areas) why.push(`in ${s.areas.join(', ')}, which the goal names`);
      const others = s.symbols.filter((n) => !s.named?.includes(n));
      const defined = [
        ...(s.named ? [`${s.named.join(', ')} (named by the goal)`] : []),
        ...others.slice(0, 3 - (s.named ? 1 : 0)),
      ];
      if (defined.length) why.push(`defines ${defined.join(', ')}`);
      if (s.matched.length) why.push(`matches ${this.words(s.matched)}`);
      if (s.tested_by) why.push(`${s.tested_by} tests it`);
      if (s.kind) why.push(`a ${s.kind} file`);
      if (why.length === 0) why.push(`linked by references to ${core[0] ?? 'the matches'}`);
      const p = literal(s.path);
      const level = sel.l4.includes(p)
        ? 'L4'
        : sel.focused?.[p]
          ? 'L3, the matching definitions'
          : 'L3';
      return `${i + 1}. ${s.path} (${level}): ${why.join('; ')}`;
    });
  }

  private finalize(input: PlannerInput, map: MapResult): PlannerOutcome {
    const sel = selectionOf(input.state.flight_plan);
    const none =
      this.rejectedFiles.size > 0
        ? `No other file to raise for the goal's terms (${this.words(this.terms) || 'none'})`
        : `No file matched the goal's terms (${this.words(this.terms) || 'none'})`;
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
