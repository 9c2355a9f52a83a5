import {
  deriveExecutionStatus,
  renderExecutionReport,
  type ExecutionAction,
  type ExecutionReportInput,
  type ExecutionReportOptions,
  type ExecutionStatus,
} from '@clippy/reports';
import type { NavigatorResult } from './navigator.js';
import type { Decision } from './state.js';
import { FINALIZE_CONTEXT, UPDATE_FLIGHT_PLAN } from './tools.js';

/** Action name for steps that are not a tool call: the model call itself (failed or not made). */
export const MODEL_CALL_ACTION = 'model_call';
/** Action name for an answer that held no usable function call (malformed, or text only). */
export const INVALID_CALL_ACTION = 'invalid_call';

function tokens(n: number): string {
  return n.toLocaleString('en-US');
}

/** "3 files now at L4, 5 at L3" from files per level L0..L4. */
function levelsNow(counts: readonly number[] | undefined): string | undefined {
  if (!counts) return undefined;
  const l4 = counts[4] ?? 0;
  const l3 = counts[3] ?? 0;
  return `${l4} file${l4 === 1 ? '' : 's'} now at L4, ${l3} at L3`;
}

function withReasoning(text: string, reasoning: string): string {
  const r = reasoning.trim();
  return r ? `${text}. Reasoning: ${r}` : `${text}.`;
}

/** One JSON value per line: compact, and a diff of the plan stays readable. */
function compactJson(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join('\n');
}

function actionOf(d: Decision, tokenBudget: number): ExecutionAction {
  const action = ((): ExecutionAction => {
    switch (d.action) {
      case UPDATE_FLIGHT_PLAN: {
        const parts = [d.description];
        const levels = levelsNow(d.counts_by_level);
        if (levels) parts.push(levels);
        parts.push(`map ${tokens(d.tokens)} of ${tokens(tokenBudget)} tokens`);
        return {
          name: UPDATE_FLIGHT_PLAN,
          status: 'SUCCESS',
          details: withReasoning(parts.join('; '), d.reasoning),
          output: compactJson(d.plan_change),
        };
      }
      case `rejected ${UPDATE_FLIGHT_PLAN}`:
        return {
          name: UPDATE_FLIGHT_PLAN,
          status: 'FAILURE',
          details: withReasoning(
            'The change failed validation and was not applied; the flight plan is unchanged',
            d.reasoning,
          ),
          ...(d.proposed !== undefined ? { output: JSON.stringify(d.proposed) } : {}),
          error: d.error ?? 'rejected',
        };
      case FINALIZE_CONTEXT: {
        const counts = d.counts_by_level;
        const files = counts
          ? `; ${tokens(counts.slice(1).reduce((a, b) => a + b, 0))} files (L4 ${counts[4]}, L3 ${counts[3]}, L2 ${counts[2]}, L1 ${counts[1]})`
          : '';
        return {
          name: FINALIZE_CONTEXT,
          status: 'SUCCESS',
          details: d.reasoning.trim() || d.description,
          output: `Final context: ${tokens(d.tokens)} of ${tokens(tokenBudget)} tokens${files}`,
        };
      }
      case 'budget_exceeded':
        return {
          name: MODEL_CALL_ACTION,
          status: 'FAILURE',
          details:
            'Not made: the call would pass the cost limit. The run stopped with the best context so far.',
          error: d.reasoning,
        };
      case 'error':
        return {
          name: MODEL_CALL_ACTION,
          status: 'FAILURE',
          details: 'The planner failed. The run stopped with the best context so far.',
          error: d.reasoning,
        };
      default:
        // `invalid call`: an unknown function, bad arguments, or no usable call at all.
        return {
          name: d.tool ?? INVALID_CALL_ACTION,
          status: 'FAILURE',
          details: d.tool
            ? `Invalid call of ${d.tool}, answered with the error; nothing was changed.`
            : 'The model made no usable tool call, answered with the error; nothing was changed.',
          error: d.error ?? d.reasoning,
        };
    }
  })();
  if (d.user_rejected) {
    // The renderer writes the seed's SKIPPED sentence; what the step did is kept as its output.
    return {
      name: action.name,
      status: 'SKIPPED',
      details: action.details,
      ...(d.user_rejected.reason !== null ? { reason: d.user_rejected.reason } : {}),
    };
  }
  return action;
}

export interface NavigatorExecutionReportOptions {
  /** Operating system named in the Environment section (default: process.platform). */
  os?: string;
}

/**
 * Maps a navigator run to Execution Report input: one action per decision (tool call, invalid
 * call, failed or refused model call), in order. A run that hit its step limit without the
 * planner finishing is at best PARTIAL_SUCCESS.
 */
export function navigatorExecutionReport(
  result: NavigatorResult,
  options: NavigatorExecutionReportOptions = {},
): ExecutionReportInput {
  const budget = result.state.budget.token_budget;
  const actions = result.state.decision_log.map((d) => actionOf(d, budget));
  let status: ExecutionStatus = deriveExecutionStatus(actions);
  if (status === 'SUCCESS' && result.state.completion_reason === 'max_iterations')
    status = 'PARTIAL_SUCCESS';
  return {
    status,
    startTime: new Date(result.started_at),
    endTime: new Date(result.finished_at),
    os: options.os ?? process.platform,
    cwd: result.state.repository,
    actions,
  };
}

/** The run's Execution Report as Markdown (the seed's contract). */
export function renderNavigatorExecutionReport(
  result: NavigatorResult,
  options: NavigatorExecutionReportOptions & ExecutionReportOptions = {},
): string {
  const { os, ...limits } = options;
  return renderExecutionReport(navigatorExecutionReport(result, { os }), limits);
}
