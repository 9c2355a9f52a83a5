import type { z } from 'zod';

import { parseOrThrow, ReportValidationError } from './errors.js';
import {
  CompactionEventSchema,
  countTimeline,
  EXIT_CODE_BY_OUTCOME,
  GuardrailEventSchema,
  LlmCallEventSchema,
  RUN_REPORT_VERSION,
  RunReportSchema,
  RunSettingsSchema,
  ToolCallEventSchema,
  TruncatedResponseEventSchema,
  type ClippyExtra,
  type CompactionEvent,
  type CompactionStrategy,
  type GuardrailEvent,
  type GuardrailLevel,
  type LlmCallEvent,
  type RetryReason,
  type RunOutcome,
  type RunReport,
  type RunSettings,
  type TimelineEvent,
  type ToolCallEvent,
  type TruncatedResponseEvent,
} from './run-report-schema.js';

/** Durations are kept to the millisecond, as swival rounds them (3 decimals). */
const DURATION_DECIMALS = 3;

export function roundSeconds(seconds: number): number {
  const factor = 10 ** DURATION_DECIMALS;
  return Math.round(seconds * factor) / factor;
}

/** Serializes a run report as swival writes it: 2-space indented JSON and a final line break. */
export function serializeRunReport(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export interface RunReportBuilderInit {
  task: string;
  model: string;
  provider: string;
  settings?: RunSettings;
  /** Top-level clippy extras (merged with any given to finish()). */
  clippy?: ClippyExtra;
}

export interface LlmCallInput {
  durationS: number;
  promptTokensEst: number;
  finishReason: string;
  isRetry?: boolean;
  retryReason?: RetryReason;
  /** Extra fields, stored under the event's `clippy` key. */
  clippy?: ClippyExtra;
}

export interface ToolCallInput {
  name: string;
  /** null when the model produced arguments that were not valid JSON. */
  arguments: Record<string, unknown> | null;
  succeeded: boolean;
  durationS: number;
  resultLength: number;
  /** Required when succeeded is false, not allowed otherwise. */
  error?: string;
  clippy?: ClippyExtra;
}

export interface CompactionInput {
  strategy: CompactionStrategy;
  tokensBefore: number;
  tokensAfter: number;
  clippy?: ClippyExtra;
}

export interface GuardrailInput {
  tool: string;
  level: GuardrailLevel;
  clippy?: ClippyExtra;
}

export interface TruncatedResponseInput {
  clippy?: ClippyExtra;
}

export interface FinishInput {
  outcome: RunOutcome;
  /** Must be a string on success and null on error. */
  answer: string | null;
  /** Required when outcome is error, not allowed otherwise. */
  errorMessage?: string;
  /** End of the run; now when absent. */
  timestamp?: Date;
  clippy?: ClippyExtra;
}

/**
 * Collects a run's timeline and builds a run report in swival's schema from it.
 * Every counter in `stats` is computed from the timeline, so they cannot disagree.
 */
export class RunReportBuilder {
  readonly #init: RunReportBuilderInit;
  readonly #settings: RunSettings;
  readonly #timeline: TimelineEvent[] = [];
  #turn = 0;

  constructor(init: RunReportBuilderInit) {
    this.#init = init;
    this.#settings = parseOrThrow(RunSettingsSchema, init.settings ?? {}, 'run report settings');
  }

  /** The current turn number (0 before the first startTurn()). */
  get turn(): number {
    return this.#turn;
  }

  /** The events recorded so far, in order. */
  get timeline(): readonly TimelineEvent[] {
    return this.#timeline;
  }

  /** Starts the next turn and returns its number (1 for the first). */
  startTurn(): number {
    this.#turn += 1;
    return this.#turn;
  }

  recordLlmCall(input: LlmCallInput): LlmCallEvent {
    const event = {
      turn: this.#currentTurn('recordLlmCall'),
      type: 'llm_call' as const,
      duration_s: roundSeconds(input.durationS),
      prompt_tokens_est: input.promptTokensEst,
      finish_reason: input.finishReason,
      is_retry: input.isRetry ?? false,
      ...(input.retryReason !== undefined ? { retry_reason: input.retryReason } : {}),
      ...withClippy(input.clippy),
    };
    return this.#push(LlmCallEventSchema, event, 'llm_call event');
  }

  recordToolCall(input: ToolCallInput): ToolCallEvent {
    const event = {
      turn: this.#currentTurn('recordToolCall'),
      type: 'tool_call' as const,
      name: input.name,
      arguments: input.arguments === null ? null : structuredClone(input.arguments),
      succeeded: input.succeeded,
      duration_s: roundSeconds(input.durationS),
      result_length: input.resultLength,
      ...(input.error !== undefined ? { error: input.error } : {}),
      ...withClippy(input.clippy),
    };
    return this.#push(ToolCallEventSchema, event, 'tool_call event');
  }

  recordCompaction(input: CompactionInput): CompactionEvent {
    const event = {
      turn: this.#currentTurn('recordCompaction'),
      type: 'compaction' as const,
      strategy: input.strategy,
      tokens_before: input.tokensBefore,
      tokens_after: input.tokensAfter,
      ...withClippy(input.clippy),
    };
    return this.#push(CompactionEventSchema, event, 'compaction event');
  }

  recordGuardrail(input: GuardrailInput): GuardrailEvent {
    const event = {
      turn: this.#currentTurn('recordGuardrail'),
      type: 'guardrail' as const,
      tool: input.tool,
      level: input.level,
      ...withClippy(input.clippy),
    };
    return this.#push(GuardrailEventSchema, event, 'guardrail event');
  }

  recordTruncatedResponse(input: TruncatedResponseInput = {}): TruncatedResponseEvent {
    const event = {
      turn: this.#currentTurn('recordTruncatedResponse'),
      type: 'truncated_response' as const,
      ...withClippy(input.clippy),
    };
    return this.#push(TruncatedResponseEventSchema, event, 'truncated_response event');
  }

  /** Builds the report, validates it against RunReportSchema and returns it. */
  finish(input: FinishInput): RunReport {
    const timeline = structuredClone(this.#timeline);
    let totalLlm = 0;
    let totalTool = 0;
    for (const event of timeline) {
      if (event.type === 'llm_call') totalLlm += event.duration_s;
      else if (event.type === 'tool_call') totalTool += event.duration_s;
    }
    const result =
      input.errorMessage !== undefined || input.outcome === 'error'
        ? {
            outcome: input.outcome,
            answer: input.answer,
            exit_code: EXIT_CODE_BY_OUTCOME[input.outcome],
            error_message: input.errorMessage,
          }
        : {
            outcome: input.outcome,
            answer: input.answer,
            exit_code: EXIT_CODE_BY_OUTCOME[input.outcome],
          };
    const clippy =
      this.#init.clippy !== undefined || input.clippy !== undefined
        ? { clippy: { ...this.#init.clippy, ...input.clippy } }
        : {};
    const report = {
      version: RUN_REPORT_VERSION,
      timestamp: (input.timestamp ?? new Date()).toISOString(),
      task: this.#init.task,
      model: this.#init.model,
      provider: this.#init.provider,
      settings: structuredClone(this.#settings),
      result,
      stats: {
        turns: this.#turn,
        ...countTimeline(timeline),
        // Sum the rounded event durations so the totals match what a reader adds up.
        total_llm_time_s: roundSeconds(totalLlm),
        total_tool_time_s: roundSeconds(totalTool),
      },
      timeline,
      ...clippy,
    };
    return parseOrThrow(RunReportSchema, report, 'run report');
  }

  #currentTurn(method: string): number {
    if (this.#turn === 0)
      throw new ReportValidationError(`${method}() called before startTurn(): no turn is open`);
    return this.#turn;
  }

  #push<S extends z.ZodType<TimelineEvent>>(schema: S, event: unknown, what: string): z.output<S> {
    const parsed = parseOrThrow(schema, event, what);
    this.#timeline.push(parsed);
    return structuredClone(parsed);
  }
}

function withClippy(clippy: ClippyExtra | undefined): { clippy?: ClippyExtra } {
  return clippy === undefined ? {} : { clippy: structuredClone(clippy) };
}
