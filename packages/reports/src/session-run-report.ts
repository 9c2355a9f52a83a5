import { z } from 'zod';
import { parseOrThrow } from './errors.js';
import { RunReportBuilder } from './run-report-builder.js';
import type { RunReport } from './run-report-schema.js';
import { shellJoin } from './shell-quote.js';
import { estimateTokens } from './token-estimate.js';

/** A point in time as the broker may send it: a Date, epoch milliseconds or an ISO string. */
const TimeSchema = z.union([z.date(), z.number(), z.string()]).transform((value, ctx) => {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: 'custom', message: `not a valid time: ${String(value)}` });
    return z.NEVER;
  }
  return date;
});

/** Model and provider recorded when the session's preset does not name them. */
export const UNKNOWN_MODEL_OR_PROVIDER = 'unknown';

export const AgentSessionInfoSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  command: z.array(z.string()),
  cwd: z.string(),
  preset: z.string(),
  model: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
  createdAt: TimeSchema,
  exitedAt: TimeSchema.nullable().optional(),
  exitCode: z.number().int().nullable().optional(),
  state: z.string(),
});
export type AgentSessionInfo = z.input<typeof AgentSessionInfoSchema>;

export const SessionTurnInputSchema = z.object({
  turn_id: z.string().min(1),
  /** When the turn completed. */
  timestamp: TimeSchema,
  duration_ms: z.number().nonnegative(),
  byte_length: z.number().int().nonnegative(),
  interrupted: z.boolean(),
  truncated: z.boolean(),
  prompt: z.string(),
  text: z.string(),
});
export type SessionTurnInput = z.input<typeof SessionTurnInputSchema>;

export const SessionRunReportInputSchema = z.object({
  session: AgentSessionInfoSchema,
  turns: z.array(SessionTurnInputSchema),
});
export type SessionRunReportInput = z.input<typeof SessionRunReportInputSchema>;

export interface SessionRunReportOptions {
  /** The report's timestamp; default: exit time, else last turn's time, else creation time. */
  timestamp?: Date;
}

/**
 * Maps a wrapped agent session to a run report: each turn is one llm_call, the last turn's text
 * is the answer, and every turn's prompt and text are kept under `clippy.answers`.
 * Outcome: `error` when the session exited non-zero or has no turn, else `success`.
 */
export function sessionRunReport(
  input: SessionRunReportInput,
  options: SessionRunReportOptions = {},
): RunReport {
  const { session, turns } = parseOrThrow(SessionRunReportInputSchema, input, 'agent session');
  const builder = new RunReportBuilder({
    task: shellJoin(session.command),
    model: session.model ?? UNKNOWN_MODEL_OR_PROVIDER,
    provider: session.provider ?? UNKNOWN_MODEL_OR_PROVIDER,
    settings: { clippy: { preset: session.preset } },
  });
  for (const turn of turns) {
    builder.startTurn();
    builder.recordLlmCall({
      durationS: turn.duration_ms / 1000,
      promptTokensEst: estimateTokens(turn.prompt),
      finishReason: turn.interrupted ? 'interrupted' : 'stop',
      isRetry: false,
      clippy: {
        turn_id: turn.turn_id,
        byte_length: turn.byte_length,
        interrupted: turn.interrupted,
        truncated: turn.truncated,
      },
    });
    // Cut at the per-turn cap: counted in stats.truncated_responses as swival counts its own.
    if (turn.truncated) builder.recordTruncatedResponse({ clippy: { turn_id: turn.turn_id } });
  }

  const lastTurn = turns.at(-1);
  const exitedNonZero = typeof session.exitCode === 'number' && session.exitCode !== 0;
  const timestamp =
    options.timestamp ?? session.exitedAt ?? lastTurn?.timestamp ?? session.createdAt;
  const clippy = {
    source: 'agent_session',
    session: {
      id: session.id,
      name: session.name,
      command: session.command,
      cwd: session.cwd,
      preset: session.preset,
      state: session.state,
      created_at: session.createdAt.toISOString(),
      exited_at: session.exitedAt?.toISOString() ?? null,
      exit_code: session.exitCode ?? null,
    },
    answers: turns.map((t) => ({ turn_id: t.turn_id, prompt: t.prompt, text: t.text })),
  };

  if (exitedNonZero)
    return builder.finish({
      outcome: 'error',
      answer: null,
      errorMessage: `session exited with code ${session.exitCode}`,
      timestamp,
      clippy,
    });
  if (lastTurn === undefined)
    return builder.finish({
      outcome: 'error',
      answer: null,
      errorMessage: 'session has no completed turn',
      timestamp,
      clippy,
    });
  return builder.finish({ outcome: 'success', answer: lastTurn.text, timestamp, clippy });
}
