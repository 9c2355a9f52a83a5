import { z } from 'zod';
import { CompletionReasonSchema, type NavigatorState } from './state.js';

/** The seed's FocusArea: a path at high verbosity. */
export const TurnReportFocusAreaSchema = z.object({
  path: z.string(),
  verbosity_level: z.number().int().min(3).max(4),
  token_contribution: z.number().int().min(0).optional(),
});

/** The seed's TurnReport (docs/turn-report.schema.json is the same contract as JSON Schema). */
export const TurnReportSchema = z.object({
  step_number: z.number().int().min(1),
  timestamp: z.string(),
  cost_this_turn: z.number().min(0),
  total_cost: z.number().min(0),
  budget_remaining: z.number().min(0),
  /** The user's cost limit in USD (--max-cost): the box shows it, not spend + remaining. */
  budget_limit: z.number().min(0).optional(),
  budget_percentage: z.number().min(0).max(100).optional(),
  map_size_tokens: z.number().int().min(0),
  token_budget: z.number().int().min(0),
  token_utilization: z.number().min(0).max(100).optional(),
  file_count: z.number().int().min(0),
  focus_areas: z.array(TurnReportFocusAreaSchema),
  excluded_areas: z.array(z.string()).optional(),
  last_action: z.string(),
  reasoning: z.string(),
  is_complete: z.boolean(),
  completion_reason: CompletionReasonSchema.nullable().optional(),
});
export type TurnReport = z.infer<typeof TurnReportSchema>;

/** Keeps USD figures free of float noise (0.1 + 0.2) without hiding sub-cent costs. */
function usd(n: number): number {
  return Math.round(n * 1e10) / 1e10;
}

function pct(part: number, whole: number): number {
  if (whole <= 0) return part > 0 ? 100 : 0;
  // The schema caps percentages at 100: an over-budget map reads as 100% (the box says "over").
  return Math.min(100, Math.round((part / whole) * 100 * 100) / 100);
}

/** Builds the Turn Report for the step that just ended. */
export function buildTurnReport(
  state: NavigatorState,
  step: { cost: number; timestamp?: Date; step?: number },
): TurnReport {
  const b = state.budget;
  const last = state.decision_log.at(-1);
  const lastStep = last?.step;
  const thisStep = state.decision_log.filter((d) => d.step === lastStep);
  return {
    step_number: Math.max(1, step.step ?? state.iterations),
    timestamp: (step.timestamp ?? new Date()).toISOString(),
    cost_this_turn: usd(step.cost),
    total_cost: usd(b.current_spend_usd),
    budget_remaining: usd(Math.max(0, b.max_spend_usd - b.current_spend_usd)),
    budget_limit: usd(b.max_spend_usd),
    budget_percentage: pct(b.current_spend_usd, b.max_spend_usd),
    map_size_tokens: state.map.total_tokens,
    token_budget: b.token_budget,
    token_utilization: pct(state.map.total_tokens, b.token_budget),
    file_count: state.map.file_count,
    focus_areas: state.map.focus_areas.map((f) => ({
      path: f.path,
      verbosity_level: f.level,
      token_contribution: f.tokens,
    })),
    excluded_areas: state.map.excluded_areas,
    last_action:
      thisStep.length > 1
        ? thisStep.map((d) => d.description).join('; ')
        : (last?.description ?? 'Initial scan'),
    reasoning: last?.reasoning ?? '',
    is_complete: state.complete,
    completion_reason: state.completion_reason,
  };
}
