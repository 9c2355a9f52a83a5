import { flightPlanToYaml, type FlightPlan, type MapResult } from '@clippy/repomap';
import { NullBrokerLink, type BrokerLink } from './broker-link.js';
import { renderFinalContext } from './final-context.js';
import { NavigatorRun, type RunSetup } from './navigator-run.js';
import type { Planner, PlannerOutcome, PlannerSettings } from './planner.js';
import { renderTurnReport } from './render-turn-report.js';
import type { NavigatorState, RunStats, TimelineEvent } from './state.js';
import { runTool } from './tool-runner.js';
import { UPDATE_FLIGHT_PLAN, type ToolResult } from './tools.js';
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

export interface NavigatorOptions extends RunSetup {
  planner: Planner;
  broker?: BrokerLink;
  /** Called after every step with its report (and the rendered box); interactive mode answers. */
  onTurn?: (
    report: TurnReport,
    view: RunView,
  ) => Promise<TurnDecision | void> | TurnDecision | void;
  /** Render boxes verbose (for the broker's turns). */
  verbose?: boolean;
  /** The clock for every time the run records (tests fix it). */
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
  /** The planner's model settings (for the run report). */
  planner_settings?: PlannerSettings;
}

/** Runs the exploration loop until the planner finalizes, a limit is reached or the user stops. */
export async function navigate(opts: NavigatorOptions): Promise<NavigatorResult> {
  const clock = opts.now ?? (() => new Date());
  const startedAt = clock();
  const broker = opts.broker ?? new NullBrokerLink();
  const run = await NavigatorRun.start(opts, clock);
  const { state } = run;
  const view: RunView = {
    state,
    mapOutput: () => run.map.output,
    planYaml: () => flightPlanToYaml(state.flight_plan),
    costBreakdown: () => costBreakdown(state, run.timeline),
  };

  await broker.start({ goal: opts.goal, root: opts.root });
  try {
    while (!state.complete) {
      if (state.iterations >= state.max_iterations) {
        run.finish(
          'max_iterations',
          state.summary || `stopped after ${state.max_iterations} steps`,
        );
        break;
      }
      const step = state.iterations + 1;
      // Kept so an interactive `reject` can put the plan and map back as they were.
      // Only a first step may start without its map (a planner that does not need it).
      if (step > 1) await run.ensureMap();
      const before: StepStart = {
        plan: state.flight_plan,
        map: run.rendered ? run.map : undefined,
      };
      const feedback = [...state.pending_feedback, ...broker.takeFeedback()];
      state.pending_feedback = [];
      await broker.setBusy(true);
      const outcome = await opts.planner.next(run.plannerInput(step, feedback), {
        recordModelCall: (ev) => run.recordModelCall(ev),
      });
      // Anything but a plan change first reads the current map (a refusal logs its figures).
      if (!opensWithPlanChange(outcome)) await run.ensureMap();
      const cost = await applyOutcome(run, step, outcome, feedback);
      await run.ensureMap();
      const report = buildTurnReport(state, { cost, timestamp: clock(), step });
      run.reports.push(report);
      await broker.turn(renderTurnReport(report, { verbose: opts.verbose }));
      await broker.setBusy(false);
      const decision = await opts.onTurn?.(report, view);
      if (state.complete) break;
      if (decision) applyUserDecision(run, step, decision, before);
    }
  } finally {
    opts.planner.dispose?.();
  }
  if (run.userAction !== 'quit') await run.ensureMap();
  const finishedAt = clock();
  const context =
    run.userAction === 'quit'
      ? ''
      : renderFinalContext({
          state,
          map: run.map,
          generatedAt: finishedAt,
          model: opts.planner.model,
          stats: run.stats,
        });
  try {
    if (context) await broker.turn(context);
  } finally {
    await broker.close();
  }
  return {
    state,
    context,
    map: run.map,
    reports: run.reports,
    timeline: run.timeline,
    stats: run.stats,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    user_action: run.userAction,
    error: run.error,
    ...(opts.planner.settings ? { planner_settings: opts.planner.settings } : {}),
  };
}

/** The plan and map a step started from (what an interactive `reject` restores). */
interface StepStart {
  plan: FlightPlan;
  /** Undefined when the step started before its map was rendered. */
  map: MapResult | undefined;
}

/** Whether a step's answer starts with a well-formed plan change (which renders its own map). */
function opensWithPlanChange(outcome: PlannerOutcome): boolean {
  return (
    outcome.kind === 'calls' && !outcome.problem && outcome.calls[0]?.name === UPDATE_FLIGHT_PLAN
  );
}

/**
 * Applies what the planner answered for a step: its tool calls (after an answer without a
 * usable call, that error first), or the end of the run when the cost limit would be passed or
 * the planner failed. Returns the step's cost.
 */
async function applyOutcome(
  run: NavigatorRun,
  step: number,
  outcome: PlannerOutcome,
  feedback: string[],
): Promise<number> {
  const { state } = run;
  if (outcome.kind === 'budget_exceeded') {
    // The call was not made: the step is not counted as an iteration, and its feedback waits,
    // but the user sees why the run ended.
    state.pending_feedback = feedback;
    run.log({
      step,
      action: 'budget_exceeded',
      description: 'Stopped before a call that would pass the cost limit',
      reasoning: outcome.message,
      plan_change: [],
      cost: 0,
    });
    run.finish('budget_exceeded', state.summary || `stopped: ${outcome.message}`);
    return 0;
  }
  state.iterations = step;
  state.budget.current_spend_usd += outcome.cost;
  if (outcome.kind === 'failed') {
    run.error = outcome.error;
    run.log({
      step,
      action: 'error',
      description: 'The planner failed',
      reasoning: outcome.error,
      plan_change: [],
      cost: outcome.cost,
    });
    // Ends the run without a completion reason: the result carries the error.
    state.complete = true;
    state.summary = state.summary || `stopped: ${outcome.error}`;
    return outcome.cost;
  }
  const results: ToolResult[] = [];
  if (outcome.problem) {
    run.stats.malformed_calls += 1;
    run.log({
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
    results.push(await runTool(run, call, step, outcome.cost));
  }
  run.lastResults = results;
  return outcome.cost;
}

/** Applies the user's answer to a Turn Report: stop, quit, feedback, or reject the step. */
function applyUserDecision(
  run: NavigatorRun,
  step: number,
  decision: TurnDecision,
  before: StepStart,
): void {
  switch (decision.action) {
    case 'stop':
    case 'quit':
      run.userAction = decision.action;
      run.finish(
        'user_cancelled',
        run.state.summary ||
          (decision.action === 'stop' ? 'stopped by the user' : 'cancelled by the user'),
      );
      return;
    case 'continue':
      if (decision.feedback) run.state.pending_feedback.push(decision.feedback);
      return;
    case 'reject':
      revertStep(run, step, decision.reason?.trim() || null, before);
  }
}

/**
 * Undoes a step the user rejected: its decisions are marked, the plan and map go back to the
 * step's start, its tool results become rejections, and the planner hears why next step.
 */
function revertStep(run: NavigatorRun, step: number, reason: string | null, before: StepStart) {
  const { state } = run;
  const decisions = state.decision_log.filter((d) => d.step === step);
  for (const d of decisions) d.user_rejected = { reason };
  run.rejection = {
    step,
    description: decisions.map((d) => d.description).join('; ') || 'no change',
    reason,
    rejectedPlan: state.flight_plan,
  };
  state.flight_plan = before.plan;
  // Rendering is deterministic: the map from before the step is the re-rendered old plan.
  if (before.map) run.setMap(before.map);
  else run.clearMap();
  const error = `rejected by the user${reason ? `: ${reason}` : ''}; the change was reverted`;
  run.lastResults = run.lastResults.map((r) => ({
    ...r,
    ok: false,
    error,
    response: { status: 'rejected_by_user', ...(reason ? { reason } : {}) },
  }));
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
