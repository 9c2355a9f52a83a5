import type { FlightPlan } from '@clippy/repomap';
import type { NavigatorRun } from './navigator-run.js';
import { applyPlanUpdate } from './plan-update.js';
import type { PatchOperation } from './state.js';
import { checkToolCall, type FinalizeContextArgs, type UpdateFlightPlanArgs } from './tool-args.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN, type ToolCall, type ToolResult } from './tools.js';

/** Where a tool call happens: the step, its model call's cost, and when the call began. */
interface CallContext {
  run: NavigatorRun;
  call: ToolCall;
  step: number;
  cost: number;
  started: Date;
}

/**
 * Runs one tool call of a step: checks it, applies it to the run (plan change and new map, or
 * the end of the run), logs the decision and answers the planner. A malformed call or a rejected
 * change is answered with the error and changes nothing.
 */
export async function runTool(
  run: NavigatorRun,
  call: ToolCall,
  step: number,
  cost: number,
): Promise<ToolResult> {
  const ctx: CallContext = { run, call, step, cost, started: run.clock() };
  const checked = checkToolCall(call);
  if (!checked.ok) {
    run.stats.malformed_calls += 1;
    await run.ensureMap();
    return refuse(ctx, checked.error, 'invalid call');
  }
  return checked.call.name === UPDATE_FLIGHT_PLAN
    ? await updateFlightPlan(ctx, checked.call.args)
    : finalizeContext(ctx, checked.call.args);
}

async function updateFlightPlan(ctx: CallContext, args: UpdateFlightPlanArgs): Promise<ToolResult> {
  const { run, call, step, cost } = ctx;
  const applied = applyPlanUpdate(run.state.flight_plan, args.updates);
  if (!applied.ok) {
    run.stats.rejected_changes += 1;
    await run.ensureMap();
    return refuse(
      ctx,
      applied.error,
      `rejected ${UPDATE_FLIGHT_PLAN}`,
      args.reasoning,
      args.updates,
    );
  }
  const before = run.state.flight_plan;
  run.state.flight_plan = applied.plan;
  run.setMap(
    applied.operations.length > 0 ? await run.render(applied.plan) : await run.ensureMap(),
  );
  run.log({
    step,
    action: UPDATE_FLIGHT_PLAN,
    description: describeChange(before, applied.plan, applied.operations),
    reasoning: args.reasoning,
    plan_change: applied.operations,
    cost,
  });
  const map = run.map;
  return run.recordToolCall(call, step, ctx.started, {
    name: call.name,
    args: call.args,
    ok: true,
    response: {
      status: 'ok',
      map_tokens: map.totalTokens,
      token_budget: run.state.budget.token_budget,
      over_budget: map.overBudget,
      files_by_level: map.countsByLevel,
      top_contributors: map.topContributors
        .slice(0, 5)
        .map((f) => `${f.path} L${f.level} ${f.tokens}`),
    },
  });
}

function finalizeContext(ctx: CallContext, args: FinalizeContextArgs): ToolResult {
  const { run, call, step, cost } = ctx;
  run.log({
    step,
    action: FINALIZE_CONTEXT,
    description: 'Finalized the context',
    reasoning: args.summary,
    plan_change: [],
    cost,
  });
  run.finish('agent_done', args.summary);
  return run.recordToolCall(call, step, ctx.started, {
    name: call.name,
    args: call.args,
    ok: true,
    response: { status: 'complete', map_tokens: run.map.totalTokens },
  });
}

/** Logs a refused call (with the change it proposed, if any) and answers it with the error. */
function refuse(
  ctx: CallContext,
  message: string,
  action: string,
  reasoning = '',
  proposed?: unknown,
): ToolResult {
  const { run, call, step, cost } = ctx;
  run.log({
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
  return run.recordToolCall(call, step, ctx.started, {
    name: call.name,
    args: call.args,
    ok: false,
    error: message,
    response: { status: 'error', error: message },
  });
}

/** A one-line account of a plan change: the levels it set, else which parts changed. */
export function describeChange(
  before: FlightPlan,
  after: FlightPlan,
  ops: PatchOperation[],
): string {
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
