import { z } from 'zod';

/** Schema version of the run report; swival's readers check for 1 and so do ours. */
export const RUN_REPORT_VERSION = 1;

/** Exit code of each outcome, as swival sets them (success 0, error 1, exhausted 2). */
export const EXIT_CODE_BY_OUTCOME = { success: 0, error: 1, exhausted: 2 } as const;

const NonNegativeInt = z.number().int().nonnegative();
const Seconds = z.number().nonnegative();
/** Turns count from 1, as in swival's loop. */
const TurnNumber = z.number().int().min(1);

/** clippy's own additions live under a `clippy` key so tools written for swival's schema ignore them. */
export const ClippyExtraSchema = z.record(z.string(), z.unknown());
export type ClippyExtra = z.infer<typeof ClippyExtraSchema>;

export const CompactionStrategySchema = z.enum(['compact_messages', 'drop_middle_turns']);
export type CompactionStrategy = z.infer<typeof CompactionStrategySchema>;

/** A retry follows a compaction, so its reason is the compaction strategy. */
export const RetryReasonSchema = CompactionStrategySchema;
export type RetryReason = z.infer<typeof RetryReasonSchema>;

export const GuardrailLevelSchema = z.enum(['nudge', 'stop']);
export type GuardrailLevel = z.infer<typeof GuardrailLevelSchema>;

export const RunOutcomeSchema = z.enum(['success', 'exhausted', 'error']);
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

export const LlmCallEventSchema = z
  .strictObject({
    turn: TurnNumber,
    type: z.literal('llm_call'),
    duration_s: Seconds,
    prompt_tokens_est: NonNegativeInt,
    finish_reason: z.string().min(1),
    is_retry: z.boolean(),
    retry_reason: RetryReasonSchema.optional(),
    clippy: ClippyExtraSchema.optional(),
  })
  .refine((e) => e.is_retry || e.retry_reason === undefined, {
    message: 'retry_reason is only allowed when is_retry is true',
    path: ['retry_reason'],
  });
export type LlmCallEvent = z.infer<typeof LlmCallEventSchema>;

export const ToolCallEventSchema = z
  .strictObject({
    turn: TurnNumber,
    type: z.literal('tool_call'),
    name: z.string().min(1),
    // null when the model produced arguments that were not valid JSON.
    arguments: z.record(z.string(), z.unknown()).nullable(),
    succeeded: z.boolean(),
    duration_s: Seconds,
    result_length: NonNegativeInt,
    error: z.string().optional(),
    clippy: ClippyExtraSchema.optional(),
  })
  .refine((e) => e.succeeded === (e.error === undefined), {
    message: 'error must be present exactly when succeeded is false',
    path: ['error'],
  });
export type ToolCallEvent = z.infer<typeof ToolCallEventSchema>;

export const CompactionEventSchema = z.strictObject({
  turn: TurnNumber,
  type: z.literal('compaction'),
  strategy: CompactionStrategySchema,
  tokens_before: NonNegativeInt,
  tokens_after: NonNegativeInt,
  clippy: ClippyExtraSchema.optional(),
});
export type CompactionEvent = z.infer<typeof CompactionEventSchema>;

export const GuardrailEventSchema = z.strictObject({
  turn: TurnNumber,
  type: z.literal('guardrail'),
  tool: z.string().min(1),
  level: GuardrailLevelSchema,
  clippy: ClippyExtraSchema.optional(),
});
export type GuardrailEvent = z.infer<typeof GuardrailEventSchema>;

export const TruncatedResponseEventSchema = z.strictObject({
  turn: TurnNumber,
  type: z.literal('truncated_response'),
  clippy: ClippyExtraSchema.optional(),
});
export type TruncatedResponseEvent = z.infer<typeof TruncatedResponseEventSchema>;

export const TimelineEventSchema = z.discriminatedUnion('type', [
  LlmCallEventSchema,
  ToolCallEventSchema,
  CompactionEventSchema,
  GuardrailEventSchema,
  TruncatedResponseEventSchema,
]);
export type TimelineEvent = z.infer<typeof TimelineEventSchema>;

/** swival's configuration snapshot; every field optional because clippy runs are not swival runs. */
export const RunSettingsSchema = z.strictObject({
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  seed: z.number().int().nullable().optional(),
  max_turns: NonNegativeInt.optional(),
  max_output_tokens: NonNegativeInt.optional(),
  context_length: NonNegativeInt.nullable().optional(),
  yolo: z.boolean().optional(),
  allowed_commands: z.array(z.string()).optional(),
  skills_discovered: z.array(z.string()).optional(),
  instructions_loaded: z.array(z.string()).optional(),
  clippy: ClippyExtraSchema.optional(),
});
export type RunSettings = z.infer<typeof RunSettingsSchema>;

export const RunResultSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    outcome: z.literal('success'),
    // success means the agent produced a final answer.
    answer: z.string(),
    exit_code: z.literal(EXIT_CODE_BY_OUTCOME.success),
  }),
  z.strictObject({
    outcome: z.literal('exhausted'),
    answer: z.string().nullable(),
    exit_code: z.literal(EXIT_CODE_BY_OUTCOME.exhausted),
  }),
  z.strictObject({
    outcome: z.literal('error'),
    answer: z.null(),
    exit_code: z.literal(EXIT_CODE_BY_OUTCOME.error),
    error_message: z.string().min(1),
  }),
]);
export type RunResult = z.infer<typeof RunResultSchema>;

export const ToolCountsSchema = z.strictObject({
  succeeded: NonNegativeInt,
  failed: NonNegativeInt,
});
export type ToolCounts = z.infer<typeof ToolCountsSchema>;

export const RunStatsSchema = z.strictObject({
  turns: NonNegativeInt,
  llm_calls: NonNegativeInt,
  total_llm_time_s: Seconds,
  total_tool_time_s: Seconds,
  tool_calls_total: NonNegativeInt,
  tool_calls_succeeded: NonNegativeInt,
  tool_calls_failed: NonNegativeInt,
  tool_calls_by_name: z.record(z.string(), ToolCountsSchema),
  compactions: NonNegativeInt,
  turn_drops: NonNegativeInt,
  guardrail_interventions: NonNegativeInt,
  truncated_responses: NonNegativeInt,
});
export type RunStats = z.infer<typeof RunStatsSchema>;

/** The counters a timeline implies; used by the builder and to check a report's consistency. */
export type TimelineCounts = Omit<RunStats, 'turns' | 'total_llm_time_s' | 'total_tool_time_s'>;

export function countTimeline(timeline: readonly TimelineEvent[]): TimelineCounts {
  const counts: TimelineCounts = {
    llm_calls: 0,
    tool_calls_total: 0,
    tool_calls_succeeded: 0,
    tool_calls_failed: 0,
    tool_calls_by_name: {},
    compactions: 0,
    turn_drops: 0,
    guardrail_interventions: 0,
    truncated_responses: 0,
  };
  for (const event of timeline) {
    switch (event.type) {
      case 'llm_call':
        counts.llm_calls += 1;
        break;
      case 'tool_call': {
        counts.tool_calls_total += 1;
        const byName = (counts.tool_calls_by_name[event.name] ??= { succeeded: 0, failed: 0 });
        if (event.succeeded) {
          counts.tool_calls_succeeded += 1;
          byName.succeeded += 1;
        } else {
          counts.tool_calls_failed += 1;
          byName.failed += 1;
        }
        break;
      }
      case 'compaction':
        // swival counts the two strategies apart: compactions truncate, turn drops remove turns.
        if (event.strategy === 'drop_middle_turns') counts.turn_drops += 1;
        else counts.compactions += 1;
        break;
      case 'guardrail':
        counts.guardrail_interventions += 1;
        break;
      case 'truncated_response':
        counts.truncated_responses += 1;
        break;
    }
  }
  return counts;
}

export const RunReportSchema = z
  .strictObject({
    version: z.literal(RUN_REPORT_VERSION),
    timestamp: z.iso.datetime({ offset: true }),
    task: z.string(),
    model: z.string().min(1),
    provider: z.string().min(1),
    settings: RunSettingsSchema,
    result: RunResultSchema,
    stats: RunStatsSchema,
    timeline: z.array(TimelineEventSchema),
    clippy: ClippyExtraSchema.optional(),
  })
  .superRefine((report, ctx) => {
    // The JSON Schema cannot say this; zod can: every counter must agree with the timeline.
    const expected = countTimeline(report.timeline);
    for (const key of Object.keys(expected) as (keyof TimelineCounts)[]) {
      const want = JSON.stringify(expected[key]);
      const got = JSON.stringify(report.stats[key]);
      if (
        key === 'tool_calls_by_name' ? !sameCounts(expected[key], report.stats[key]) : want !== got
      )
        ctx.addIssue({
          code: 'custom',
          path: ['stats', key],
          message: `stats.${key} is ${got} but the timeline gives ${want}`,
        });
    }
  });
export type RunReport = z.infer<typeof RunReportSchema>;

function sameCounts(a: Record<string, ToolCounts>, b: Record<string, ToolCounts>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (k) => b[k] !== undefined && a[k]?.succeeded === b[k].succeeded && a[k]?.failed === b[k].failed,
  );
}
