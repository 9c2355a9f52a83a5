import { RunReportBuilder, type ClippyExtra, type RunReport } from '@clippy/reports';
import type { NavigatorResult } from './navigator.js';
import type { ModelCallEvent } from './state.js';

/** Gemini's finish reasons in swival's words where one fits; the rest lowercased. */
function finishReason(ev: ModelCallEvent): string {
  if (ev.finish_reason === null) return ev.error ? 'error' : 'unknown';
  const reason = ev.finish_reason.toLowerCase();
  return reason === 'max_tokens' ? 'length' : reason;
}

export interface NavigatorRunReportOptions {
  /** More of the run's options, stored under `settings.clippy` (e.g. include/exclude globs). */
  settings?: ClippyExtra;
  /** End of the run (default: the result's finished_at). */
  timestamp?: Date;
}

/**
 * A navigator run as a run report (swival's schema, `@clippy/reports`): one turn per step,
 * every model call an `llm_call` and every tool call a `tool_call`, with their measured
 * durations; the final context is the answer. Outcome: `success` when the planner finalized or
 * the user stopped (`n`), `exhausted` at the step or cost limit (exit 2), `error` when the
 * planner failed (exit 1).
 */
export function navigatorRunReport(
  result: NavigatorResult,
  options: NavigatorRunReportOptions = {},
): RunReport {
  const { state } = result;
  const builder = new RunReportBuilder({
    task: state.goal,
    model: state.budget.pricing.model,
    provider: state.planner,
    settings: {
      max_turns: state.max_iterations,
      ...result.planner_settings,
      clippy: {
        planner: state.planner,
        model: state.budget.pricing.model,
        mode: state.mode,
        token_budget: state.budget.token_budget,
        max_cost_usd: state.budget.max_spend_usd,
        max_iterations: state.max_iterations,
        price_input_per_1m: state.budget.pricing.input,
        price_output_per_1m: state.budget.pricing.output,
        ...options.settings,
      },
    },
    clippy: { kind: 'navigator', repository: state.repository },
  });
  let turn = 0;
  // A model call that follows a failed, retried attempt of the same step is a retry.
  let retriedStep = 0;
  for (const ev of result.timeline) {
    while (turn < ev.step) turn = builder.startTurn();
    if (ev.type === 'model_call') {
      builder.recordLlmCall({
        durationS: ev.duration_ms / 1000,
        promptTokensEst: ev.prompt_tokens_estimate,
        finishReason: finishReason(ev),
        isRetry: retriedStep === ev.step,
        clippy: {
          step: ev.step,
          started_at: ev.started_at,
          model: ev.model,
          estimate_source: ev.estimate_source,
          prompt_tokens: ev.prompt_tokens,
          output_tokens: ev.output_tokens,
          thoughts_tokens: ev.thoughts_tokens,
          cost_usd: ev.cost,
          retried: ev.retry,
          ...(ev.retry_reason ? { retry_reason: ev.retry_reason } : {}),
          ...(ev.error ? { error: ev.error } : {}),
        },
      });
      if (ev.finish_reason === 'MAX_TOKENS') builder.recordTruncatedResponse({});
      retriedStep = ev.retry ? ev.step : 0;
    } else {
      const args =
        ev.arguments && typeof ev.arguments === 'object' && !Array.isArray(ev.arguments)
          ? (ev.arguments as Record<string, unknown>)
          : null;
      builder.recordToolCall({
        name: ev.name || '(none)',
        arguments: args,
        succeeded: ev.succeeded,
        durationS: ev.duration_ms / 1000,
        resultLength: ev.result_length,
        ...(ev.succeeded ? {} : { error: ev.error ?? 'failed' }),
        clippy: { step: ev.step, started_at: ev.started_at },
      });
    }
  }
  while (turn < state.iterations) turn = builder.startTurn();
  const clippy: ClippyExtra = {
    completion_reason: state.completion_reason,
    user_action: result.user_action,
    cost_usd: state.budget.current_spend_usd,
    started_at: result.started_at,
    finished_at: result.finished_at,
    map_tokens: result.map.totalTokens,
    files_by_level: [...result.map.countsByLevel],
    stats: { ...result.stats },
  };
  const timestamp = options.timestamp ?? new Date(result.finished_at);
  if (result.error)
    return builder.finish({
      outcome: 'error',
      answer: null,
      errorMessage: result.error,
      timestamp,
      clippy,
    });
  if (result.user_action === 'quit')
    return builder.finish({
      outcome: 'error',
      answer: null,
      errorMessage: 'cancelled by the user',
      timestamp,
      clippy,
    });
  const finished = state.completion_reason === 'agent_done' || result.user_action === 'stop';
  return builder.finish({
    outcome: finished ? 'success' : 'exhausted',
    answer: result.context || (finished ? '' : null),
    timestamp,
    clippy,
  });
}
