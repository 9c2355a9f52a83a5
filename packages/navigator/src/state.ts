import { FlightPlanSchema } from '@clippy/repomap';
import { z } from 'zod';

/** Why a run ended; the same four words appear in Turn Reports, the JSON result and exit codes. */
export const CompletionReasonSchema = z.enum([
  'agent_done',
  'budget_exceeded',
  'max_iterations',
  'user_cancelled',
]);
export type CompletionReason = z.infer<typeof CompletionReasonSchema>;

export const ModeSchema = z.enum(['autonomous', 'interactive']);
export type Mode = z.infer<typeof ModeSchema>;

/** USD per 1M tokens; thinking tokens are billed at the output price. */
export const PricingSchema = z.strictObject({
  model: z.string(),
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
});
export type Pricing = z.infer<typeof PricingSchema>;

export const BudgetConfigSchema = z.strictObject({
  max_spend_usd: z.number().nonnegative(),
  current_spend_usd: z.number().nonnegative(),
  pricing: PricingSchema,
  /** The map's token budget (the flight plan's `budget` is kept equal to it). */
  token_budget: z.number().int().positive(),
});
export type BudgetConfig = z.infer<typeof BudgetConfigSchema>;

/** An RFC 6902 operation as recorded in the decision log. */
export const PatchOperationSchema = z.looseObject({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
});
export type PatchOperation = z.infer<typeof PatchOperationSchema>;

export const DecisionSchema = z.strictObject({
  step: z.number().int().positive(),
  /** e.g. `update_flight_plan`, `finalize_context`, `rejected update_flight_plan`, `invalid call`. */
  action: z.string(),
  /** A one-line human description of what changed. */
  description: z.string(),
  reasoning: z.string(),
  /** The plan change as RFC 6902 operations (empty when nothing changed). */
  plan_change: z.array(PatchOperationSchema),
  /** USD of the model call that produced this decision (0 for the offline planner). */
  cost: z.number().nonnegative(),
  /** Map tokens after the decision. */
  tokens: z.number().int().nonnegative(),
  timestamp: z.string(),
  /** Set when the call was rejected (validation error sent back to the planner). */
  error: z.string().optional(),
  /** The function the model called, when it differs from `action` (invalid calls). */
  tool: z.string().optional(),
  /** The change the planner proposed, kept when validation rejected it. */
  proposed: z.unknown().optional(),
  /** Files per level L0..L4 after the decision. */
  counts_by_level: z.array(z.number().int().nonnegative()).length(5).optional(),
  /** Set when the user rejected this step in interactive mode (its change was reverted). */
  user_rejected: z.strictObject({ reason: z.string().nullable() }).optional(),
});
export type Decision = z.infer<typeof DecisionSchema>;

export const FocusAreaSchema = z.strictObject({
  path: z.string(),
  level: z.union([z.literal(3), z.literal(4)]),
  tokens: z.number().int().nonnegative(),
});
export type FocusArea = z.infer<typeof FocusAreaSchema>;

export const MapMetadataSchema = z.strictObject({
  total_tokens: z.number().int().nonnegative(),
  file_count: z.number().int().nonnegative(),
  counts_by_level: z.array(z.number().int().nonnegative()).length(5),
  focus_areas: z.array(FocusAreaSchema),
  excluded_areas: z.array(z.string()),
  over_budget: z.boolean(),
});
export type MapMetadata = z.infer<typeof MapMetadataSchema>;

export const NavigatorStateSchema = z.strictObject({
  goal: z.string().min(1),
  repository: z.string(),
  mode: ModeSchema,
  planner: z.enum(['gemini', 'offline']),
  budget: BudgetConfigSchema,
  flight_plan: FlightPlanSchema,
  decision_log: z.array(DecisionSchema),
  map: MapMetadataSchema,
  /** Model calls made so far (one per step). */
  iterations: z.number().int().nonnegative(),
  max_iterations: z.number().int().positive(),
  complete: z.boolean(),
  completion_reason: CompletionReasonSchema.nullable(),
  /** The planner's summary from finalize_context (or why the run stopped). */
  summary: z.string(),
  /** Feedback waiting for the next step (from interactive input or relayed text). */
  pending_feedback: z.array(z.string()),
});
export type NavigatorState = z.infer<typeof NavigatorStateSchema>;

/** One model call in the run timeline (feeds the run report). */
export interface ModelCallEvent {
  type: 'model_call';
  step: number;
  started_at: string;
  duration_ms: number;
  model: string;
  /** Input tokens estimated before the call, and how they were counted. */
  prompt_tokens_estimate: number;
  estimate_source: 'server' | 'o200k' | 'none';
  prompt_tokens: number;
  output_tokens: number;
  thoughts_tokens: number;
  cost: number;
  finish_reason: string | null;
  /** Set on attempts that failed and were retried (and on the final failed attempt). */
  retry: boolean;
  retry_reason?: string;
  error?: string;
}

/** One tool call in the run timeline. */
export interface ToolCallEvent {
  type: 'tool_call';
  step: number;
  started_at: string;
  name: string;
  arguments: unknown;
  succeeded: boolean;
  duration_ms: number;
  result_length: number;
  error?: string;
}

export type TimelineEvent = ModelCallEvent | ToolCallEvent;

/** Counters that reports show. */
export interface RunStats {
  model_calls: number;
  retries: number;
  malformed_calls: number;
  rejected_changes: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
}
