import {
  flightPlanToYaml,
  indexRepository,
  referenceGraph,
  renderMap,
  type FlightPlan,
  type IndexOptions,
  type MapResult,
  type RepoIndex,
} from '@clippy/repomap';
import { excludedAreas, focusAreas } from './areas.js';
import { DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_SPEND_USD, DEFAULT_TOKEN_BUDGET } from './defaults.js';
import { goalTerms } from './goal-terms.js';
import type { Planner, PlannerInput, Rejection } from './planner.js';
import type {
  CompletionReason,
  Decision,
  MapMetadata,
  ModelCallEvent,
  Mode,
  NavigatorState,
  Pricing,
  RunStats,
  TimelineEvent,
} from './state.js';
import type { ToolCall, ToolResult } from './tools.js';
import type { TurnReport } from './turn-report.js';

/** A decision as a step reports it; the run adds the map figures and the time. */
export type DecisionEntry = Omit<Decision, 'timestamp' | 'tokens' | 'counts_by_level'>;

/** The navigator's options that set up a run (its state, its index, its first map). */
export interface RunSetup {
  root: string;
  goal: string;
  planner: Pick<Planner, 'kind' | 'needsFirstMap'>;
  pricing: Pricing;
  mode?: Mode;
  tokenBudget?: number;
  maxSpendUsd?: number;
  maxIterations?: number;
  /** A plan to start from (its budget is replaced by tokenBudget). */
  initialPlan?: FlightPlan;
  /** A prebuilt index (tests, benchmarks); otherwise the repository is indexed here. */
  index?: RepoIndex;
  indexOptions?: Omit<IndexOptions, 'root'>;
}

/** What the state records about a map (the Turn Report and the final context read it). */
export function mapMetadata(map: MapResult): MapMetadata {
  return {
    total_tokens: map.totalTokens,
    file_count: map.files.filter((f) => f.level > 0).length,
    counts_by_level: [...map.countsByLevel],
    focus_areas: focusAreas(map.files),
    excluded_areas: excludedAreas(map.files),
    over_budget: map.overBudget,
  };
}

/**
 * One navigator run while it goes: the state, the current map, and what the reports read (the
 * timeline, counters, Turn Reports). Every time it records comes from the run's clock.
 */
export class NavigatorRun {
  readonly timeline: TimelineEvent[] = [];
  readonly stats: RunStats = {
    model_calls: 0,
    retries: 0,
    malformed_calls: 0,
    rejected_changes: 0,
    tool_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
  };
  readonly reports: TurnReport[] = [];
  /** Results of the last step's tool calls, shown to the planner next step. */
  lastResults: ToolResult[] = [];
  /** Set when the user rejected the last step; the next planner input carries it. */
  rejection: Rejection | undefined;
  /** `stop` or `quit` when the user ended the run. */
  userAction: 'stop' | 'quit' | null = null;
  /** Why the planner failed, when it did. */
  error: string | null = null;

  private constructor(
    readonly state: NavigatorState,
    private current: MapResult | undefined,
    readonly index: RepoIndex,
    private readonly graph: Map<string, Map<string, number>>,
    private readonly terms: string[],
    readonly clock: () => Date,
  ) {}

  /** Indexes the repository (unless given an index), renders the first map, sets up the state. */
  static async start(opts: RunSetup, clock: () => Date): Promise<NavigatorRun> {
    const tokenBudget = opts.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
    const index = opts.index ?? (await indexRepository({ root: opts.root, ...opts.indexOptions }));
    const graph = referenceGraph(index);
    const terms = goalTerms(opts.goal);
    const plan: FlightPlan = { ...(opts.initialPlan ?? {}), budget: tokenBudget };
    const map =
      opts.planner.needsFirstMap === false
        ? undefined
        : await renderFor(index, plan, tokenBudget, terms);
    const state: NavigatorState = {
      goal: opts.goal,
      repository: opts.root,
      mode: opts.mode ?? 'autonomous',
      planner: opts.planner.kind,
      budget: {
        max_spend_usd: opts.maxSpendUsd ?? DEFAULT_MAX_SPEND_USD,
        current_spend_usd: 0,
        pricing: opts.pricing,
        token_budget: tokenBudget,
      },
      flight_plan: plan,
      decision_log: [],
      map: mapMetadata(map ?? blankMap(tokenBudget)),
      iterations: 0,
      max_iterations: opts.maxIterations ?? DEFAULT_MAX_ITERATIONS,
      complete: false,
      completion_reason: null,
      summary: '',
      pending_feedback: [],
    };
    return new NavigatorRun(state, map, index, graph, terms, clock);
  }

  /** The current map (only read after `ensureMap` when the first one may not be rendered). */
  get map(): MapResult {
    if (!this.current) throw new Error('the map was read before it was rendered');
    return this.current;
  }

  /** Whether the current plan's map is rendered. */
  get rendered(): boolean {
    return this.current !== undefined;
  }

  /** The current plan's map, rendered now if it was not yet. */
  async ensureMap(): Promise<MapResult> {
    if (!this.current) this.setMap(await this.render(this.state.flight_plan));
    return this.current!;
  }

  /** Forgets the map (a reverted first step): the plan's map is rendered when next read. */
  clearMap(): void {
    this.current = undefined;
    this.state.map = mapMetadata(blankMap(this.state.budget.token_budget));
  }

  /** Makes `map` the current map, and the state's figures its figures. */
  setMap(map: MapResult): void {
    this.current = map;
    this.state.map = mapMetadata(map);
  }

  /** The map of a plan within the run's token budget (the user's, whatever the plan says). */
  render(plan: FlightPlan): Promise<MapResult> {
    return renderFor(this.index, plan, this.state.budget.token_budget, this.terms);
  }

  /** Adds a decision to the log with the current map's figures and the time. */
  log(d: DecisionEntry): void {
    this.state.decision_log.push({
      ...d,
      tokens: this.map.totalTokens,
      counts_by_level: [...this.map.countsByLevel],
      timestamp: this.clock().toISOString(),
    });
  }

  finish(reason: CompletionReason, summary?: string): void {
    this.state.complete = true;
    this.state.completion_reason = reason;
    if (summary !== undefined) this.state.summary = summary;
  }

  recordModelCall(ev: ModelCallEvent): void {
    this.timeline.push(ev);
    this.stats.model_calls += 1;
    if (ev.retry) this.stats.retries += 1;
    this.stats.input_tokens += ev.prompt_tokens;
    this.stats.output_tokens += ev.output_tokens + ev.thoughts_tokens;
  }

  /** Adds a tool call that began at `started` (a reading of the run's clock) to the timeline. */
  recordToolCall(call: ToolCall, step: number, started: Date, result: ToolResult): ToolResult {
    this.stats.tool_calls += 1;
    this.timeline.push({
      type: 'tool_call',
      step,
      started_at: started.toISOString(),
      name: call.name,
      arguments: call.args,
      succeeded: result.ok,
      duration_ms: this.clock().getTime() - started.getTime(),
      result_length: JSON.stringify(result.response).length,
      ...(result.error ? { error: result.error } : {}),
    });
    return result;
  }

  /** What the planner sees for `step`; a pending rejection is handed over once. */
  plannerInput(step: number, feedback: string[]): PlannerInput {
    const input: PlannerInput = {
      state: this.state,
      step,
      map: this.current ?? blankMap(this.state.budget.token_budget),
      ...(this.current ? {} : { ensureMap: () => this.ensureMap() }),
      index: this.index,
      graph: this.graph,
      lastResults: this.lastResults,
      feedback,
      planYaml: flightPlanToYaml(this.state.flight_plan),
      ...(this.rejection ? { rejection: this.rejection } : {}),
    };
    this.rejection = undefined;
    return input;
  }
}

/** A stand-in for a map not rendered yet: no files, no tokens. */
function blankMap(budget: number): MapResult {
  return {
    files: [],
    totalTokens: 0,
    budget,
    overBudget: false,
    countsByLevel: [0, 0, 0, 0, 0],
    topContributors: [],
    warnings: [],
    output: '',
  };
}

function renderFor(
  index: RepoIndex,
  plan: FlightPlan,
  budget: number,
  terms: string[],
): Promise<MapResult> {
  return renderMap(index, { plan, budget, goalTerms: terms, format: 'md' });
}
