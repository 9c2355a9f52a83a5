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
import { NullBrokerLink, type BrokerLink } from './broker-link.js';
import { renderFinalContext } from './final-context.js';
import { goalTerms } from './goal-terms.js';
import { applyPlanUpdate } from './plan-update.js';
import type { Planner, PlannerInput, Rejection } from './planner.js';
import { renderTurnReport } from './render-turn-report.js';
import type {
  CompletionReason,
  Decision,
  MapMetadata,
  Mode,
  NavigatorState,
  PatchOperation,
  Pricing,
  RunStats,
  TimelineEvent,
  ToolCallEvent,
} from './state.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall, type ToolResult } from './tools.js';
import { buildTurnReport, type TurnReport } from './turn-report.js';

import { DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_SPEND_USD, DEFAULT_TOKEN_BUDGET } from './defaults.js';
export { DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_SPEND_USD, DEFAULT_TOKEN_BUDGET };

/** What the user chose after a Turn Report (interactive mode). */
export type TurnDecision =
  | { action: 'continue'; feedback?: string }
  /** Stop now and output the current context. */
  | { action: 'stop' }
  /** Cancel: no output. */
  | { action: 'quit' }
  /**
   * Undo the step that just ran (its plan change is reverted) and go on; the planner is told
   * about the rejection, with the user's reason when given.
   */
  | { action: 'reject'; reason?: string };

/** Read access to the run for interactive commands (`show`, `plan`, `cost`). */
export interface RunView {
  state: Readonly<NavigatorState>;
  mapOutput(): string;
  planYaml(): string;
  costBreakdown(): string;
}

export interface NavigatorOptions {
  root: string;
  goal: string;
  planner: Planner;
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
  broker?: BrokerLink;
  /** Called after every step with its report (and the rendered box); interactive mode answers. */
  onTurn?: (
    report: TurnReport,
    view: RunView,
  ) => Promise<TurnDecision | void> | TurnDecision | void;
  /** Render boxes verbose (for the broker's turns). */
  verbose?: boolean;
  now?: () => Date;
}

export interface NavigatorResult {
  state: NavigatorState;
  /** The final context (Markdown); empty when the user quit. */
  context: string;
  map: MapResult;
  reports: TurnReport[];
  timeline: TimelineEvent[];
  stats: RunStats;
  started_at: string;
  finished_at: string;
  /** `stop` (n/Enter) or `quit` (q) when the user ended the run. */
  user_action: 'stop' | 'quit' | null;
  /** Set when the planner failed (model unreachable): the context is the best so far. */
  error: string | null;
}

function mapMetadata(map: MapResult): MapMetadata {
  return {
    total_tokens: map.totalTokens,
    file_count: map.files.filter((f) => f.level > 0).length,
    counts_by_level: [...map.countsByLevel],
    focus_areas: focusAreas(map.files),
    excluded_areas: excludedAreas(map.files),
    over_budget: map.overBudget,
  };
}

/** A one-line account of a plan change: the levels it set, else which parts changed. */
function describeChange(before: FlightPlan, after: FlightPlan, ops: PatchOperation[]): string {
  if (ops.length === 0) return 'Kept the flight plan unchanged';
  const levelsOf = (p: FlightPlan) =>
    new Map(
      (p.verbosity ?? []).filter((r) => r.level !== undefined).map((r) => [r.pattern, r.level!]),
    );
  const old = levelsOf(before);
  const now = levelsOf(after);
  const changes: string[] = [];
  for (const [pattern, level] of now) {
    if (old.get(pattern) !== level) changes.push(`${pattern} to L${level}`);
  }
  const dropped = [...old.keys()].filter((p) => !now.has(p));
  const parts: string[] = [];
  if (changes.length) {
    parts.push(
      `Set ${changes.slice(0, 3).join(', ')}${changes.length > 3 ? ` and ${changes.length - 3} more` : ''}`,
    );
  }
  if (dropped.length)
    parts.push(
      `released ${dropped.slice(0, 2).join(', ')}${dropped.length > 2 ? ` and ${dropped.length - 2} more` : ''}`,
    );
  const other = [...new Set(ops.map((o) => o.path.split('/')[1] ?? ''))].filter(
    (k) => k && k !== 'verbosity',
  );
  if (other.length) parts.push(`changed ${other.join(', ')}`);
  const text = parts.join('; ') || 'Changed verbosity rules';
  return text[0]!.toUpperCase() + text.slice(1);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Runs the exploration loop until the planner finalizes, a limit is reached or the user stops. */
export async function navigate(opts: NavigatorOptions): Promise<NavigatorResult> {
  const now = opts.now ?? (() => new Date());
  const startedAt = now();
  const tokenBudget = opts.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
  const broker = opts.broker ?? new NullBrokerLink();
  const index = opts.index ?? (await indexRepository({ root: opts.root, ...opts.indexOptions }));
  const graph = referenceGraph(index);
  const timeline: TimelineEvent[] = [];
  const stats: RunStats = {
    model_calls: 0,
    retries: 0,
    malformed_calls: 0,
    rejected_changes: 0,
    tool_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
  };
  const terms = goalTerms(opts.goal);
  const render = async (plan: FlightPlan) =>
    await renderMap(index, { plan, budget: tokenBudget, goalTerms: terms, format: 'md' });

  const plan: FlightPlan = { ...(opts.initialPlan ?? {}), budget: tokenBudget };
  let map = await render(plan);
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
    map: mapMetadata(map),
    iterations: 0,
    max_iterations: opts.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    complete: false,
    completion_reason: null,
    summary: '',
    pending_feedback: [],
  };
  const reports: TurnReport[] = [];
  const stepCosts = new Map<number, number>();
  let lastResults: ToolResult[] = [];
  let rejection: Rejection | undefined;
  let userAction: 'stop' | 'quit' | null = null;
  let error: string | null = null;

  const finish = (reason: CompletionReason, summary?: string) => {
    state.complete = true;
    state.completion_reason = reason;
    if (summary !== undefined) state.summary = summary;
  };

  const view: RunView = {
    state,
    mapOutput: () => map.output,
    planYaml: () => flightPlanToYaml(state.flight_plan),
    costBreakdown: () => costBreakdown(state, timeline),
  };

  const log = (d: Omit<Decision, 'timestamp' | 'tokens' | 'counts_by_level'>) => {
    state.decision_log.push({
      ...d,
      tokens: map.totalTokens,
      counts_by_level: [...map.countsByLevel],
      timestamp: now().toISOString(),
    });
  };

  const runTool = async (call: ToolCall, step: number, cost: number): Promise<ToolResult> => {
    const started = Date.now();
    const record = (r: ToolResult) => {
      stats.tool_calls += 1;
      const text = JSON.stringify(r.response);
      const ev: ToolCallEvent = {
        type: 'tool_call',
        step,
        started_at: new Date(started).toISOString(),
        name: call.name,
        arguments: call.args,
        succeeded: r.ok,
        duration_ms: Date.now() - started,
        result_length: text.length,
        ...(r.error ? { error: r.error } : {}),
      };
      timeline.push(ev);
      return r;
    };
    const reject = (
      message: string,
      action: string,
      reasoning = '',
      proposed?: unknown,
    ): ToolResult => {
      log({
        step,
        action,
        description: `Rejected ${call.name || 'call'}: ${message}`,
        reasoning,
        plan_change: [],
        cost,
        error: message,
        ...(call.name && call.name !== action ? { tool: call.name } : {}),
        ...(proposed !== undefined ? { proposed } : {}),
      });
      return record({
        name: call.name,
        args: call.args,
        ok: false,
        error: message,
        response: { status: 'error', error: message },
      });
    };
    const args = call.args;
    if (call.name === UPDATE_FLIGHT_PLAN) {
      if (!isRecord(args) || typeof args.reasoning !== 'string' || args.updates === undefined) {
        stats.malformed_calls += 1;
        return reject(
          'bad arguments: update_flight_plan needs {reasoning: string, updates: object | array}',
          'invalid call',
        );
      }
      const applied = applyPlanUpdate(state.flight_plan, args.updates);
      if (!applied.ok) {
        stats.rejected_changes += 1;
        return reject(applied.error, 'rejected update_flight_plan', args.reasoning, args.updates);
      }
      const before = state.flight_plan;
      state.flight_plan = applied.plan;
      if (applied.operations.length > 0) map = await render(applied.plan);
      state.map = mapMetadata(map);
      log({
        step,
        action: UPDATE_FLIGHT_PLAN,
        description: describeChange(before, applied.plan, applied.operations),
        reasoning: args.reasoning,
        plan_change: applied.operations,
        cost,
      });
      return record({
        name: call.name,
        args,
        ok: true,
        response: {
          status: 'ok',
          map_tokens: map.totalTokens,
          token_budget: tokenBudget,
          over_budget: map.overBudget,
          files_by_level: map.countsByLevel,
          top_contributors: map.topContributors
            .slice(0, 5)
            .map((f) => `${f.path} L${f.level} ${f.tokens}`),
        },
      });
    }
    if (call.name === FINALIZE_CONTEXT) {
      if (!isRecord(args) || typeof args.summary !== 'string') {
        stats.malformed_calls += 1;
        return reject('bad arguments: finalize_context needs {summary: string}', 'invalid call');
      }
      log({
        step,
        action: FINALIZE_CONTEXT,
        description: 'Finalized the context',
        reasoning: args.summary,
        plan_change: [],
        cost,
      });
      finish('agent_done', args.summary);
      return record({
        name: call.name,
        args,
        ok: true,
        response: { status: 'complete', map_tokens: map.totalTokens },
      });
    }
    stats.malformed_calls += 1;
    return reject(
      `unknown function "${call.name}"; the tools are ${UPDATE_FLIGHT_PLAN} and ${FINALIZE_CONTEXT}`,
      'invalid call',
    );
  };

  await broker.start({ goal: opts.goal, root: opts.root });
  try {
    while (!state.complete) {
      if (state.iterations >= state.max_iterations) {
        finish('max_iterations', state.summary || `stopped after ${state.max_iterations} steps`);
        break;
      }
      const step = state.iterations + 1;
      // Kept so an interactive `reject` can put the plan and map back as they were.
      const planBefore = state.flight_plan;
      const mapBefore = map;
      const feedback = [...state.pending_feedback, ...broker.takeFeedback()];
      state.pending_feedback = [];
      await broker.setBusy(true);
      const input: PlannerInput = {
        state,
        step,
        map,
        index,
        graph,
        lastResults,
        feedback,
        planYaml: flightPlanToYaml(state.flight_plan),
        ...(rejection ? { rejection } : {}),
      };
      rejection = undefined;
      const outcome = await opts.planner.next(input, {
        recordModelCall: (ev) => {
          timeline.push(ev);
          stats.model_calls += 1;
          if (ev.retry) stats.retries += 1;
          stats.input_tokens += ev.prompt_tokens;
          stats.output_tokens += ev.output_tokens + ev.thoughts_tokens;
        },
      });
      if (outcome.kind === 'budget_exceeded') {
        // The call was not made: the step did not happen, but the user sees why the run ended.
        state.pending_feedback = feedback;
        log({
          step,
          action: 'budget_exceeded',
          description: 'Stopped before a call that would pass the cost limit',
          reasoning: outcome.message,
          plan_change: [],
          cost: 0,
        });
        finish('budget_exceeded', state.summary || `stopped: ${outcome.message}`);
        // No call was made: the step is not counted as an iteration.

        stepCosts.set(step, 0);
      } else if (outcome.kind === 'failed') {
        state.iterations = step;
        state.budget.current_spend_usd += outcome.cost;
        error = outcome.error;
        log({
          step,
          action: 'error',
          description: 'The planner failed',
          reasoning: outcome.error,
          plan_change: [],
          cost: outcome.cost,
        });
        stepCosts.set(step, outcome.cost);
        state.complete = true;
        state.summary = state.summary || `stopped: ${outcome.error}`;
      } else {
        state.iterations = step;
        state.budget.current_spend_usd += outcome.cost;
        stepCosts.set(step, outcome.cost);
        const results: ToolResult[] = [];
        if (outcome.problem) {
          stats.malformed_calls += 1;
          log({
            step,
            action: 'invalid call',
            description: 'The model made no usable tool call',
            reasoning: outcome.problem,
            plan_change: [],
            cost: outcome.cost,
            error: outcome.problem,
          });
          results.push({
            name: '(none)',
            args: null,
            ok: false,
            error: outcome.problem,
            response: { status: 'error', error: outcome.problem },
          });
        }
        for (const call of outcome.calls) {
          if (state.complete) break;
          results.push(await runTool(call, step, outcome.cost));
        }
        lastResults = results;
      }
      const report = buildTurnReport(state, {
        cost: stepCosts.get(step) ?? 0,
        timestamp: now(),
        step,
      });
      reports.push(report);
      await broker.turn(renderTurnReport(report, { verbose: opts.verbose }));
      await broker.setBusy(false);
      const decision = await opts.onTurn?.(report, view);
      if (state.complete) break;
      if (decision?.action === 'stop' || decision?.action === 'quit') {
        userAction = decision.action;
        finish(
          'user_cancelled',
          state.summary ||
            (decision.action === 'stop' ? 'stopped by the user' : 'cancelled by the user'),
        );
        break;
      }
      if (decision?.action === 'continue' && decision.feedback)
        state.pending_feedback.push(decision.feedback);
      if (decision?.action === 'reject') {
        const reason = decision.reason?.trim() || null;
        const decisions = state.decision_log.filter((d) => d.step === step);
        for (const d of decisions) d.user_rejected = { reason };
        rejection = {
          step,
          description: decisions.map((d) => d.description).join('; ') || 'no change',
          reason,
          rejectedPlan: state.flight_plan,
        };
        state.flight_plan = planBefore;
        // Rendering is deterministic: the map from before the step is the re-rendered old plan.
        map = mapBefore;
        state.map = mapMetadata(map);
        const error = `rejected by the user${reason ? `: ${reason}` : ''}; the change was reverted`;
        lastResults = lastResults.map((r) => ({
          ...r,
          ok: false,
          error,
          response: { status: 'rejected_by_user', ...(reason ? { reason } : {}) },
        }));
      }
    }
  } finally {
    opts.planner.dispose?.();
  }
  const finishedAt = now();
  const context =
    userAction === 'quit'
      ? ''
      : renderFinalContext({
          state,
          map,
          generatedAt: finishedAt,
          model: opts.planner.model,
          stats,
        });
  try {
    if (context) await broker.turn(context);
  } finally {
    await broker.close();
  }
  return {
    state,
    context,
    map,
    reports,
    timeline,
    stats,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    user_action: userAction,
    error,
  };
}

/** Per-step cost lines for the interactive `cost` command and the JSON result. */
export function costBreakdown(state: NavigatorState, timeline: TimelineEvent[]): string {
  const p = state.budget.pricing;
  const lines = [
    `Pricing: ${p.model} $${p.input}/1M input, $${p.output}/1M output (thinking billed as output)`,
  ];
  const calls = timeline.filter((e) => e.type === 'model_call');
  if (calls.length === 0) lines.push('No model calls (offline planner: no cost).');
  for (const c of calls) {
    lines.push(
      `step ${c.step}: ${c.prompt_tokens} in + ${c.output_tokens} out + ${c.thoughts_tokens} thinking = $${c.cost.toFixed(6)}${c.retry ? ` (failed, retried: ${c.retry_reason})` : ''}${c.error && !c.retry ? ` (failed: ${c.error})` : ''}`,
    );
  }
  const b = state.budget;
  lines.push(
    `Total: $${b.current_spend_usd.toFixed(6)} of $${b.max_spend_usd.toFixed(2)} (${b.max_spend_usd > 0 ? ((b.current_spend_usd / b.max_spend_usd) * 100).toFixed(1) : '0.0'}%)`,
  );
  return lines.join('\n');
}
