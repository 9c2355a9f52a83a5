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
  /** The agent's own numbers for the turn (its channel: docs/turns.md, "Agent channels"). */
  agent: z
    .object({
      model: z.string().optional(),
      input_tokens: z.number().int().nonnegative().optional(),
      output_tokens: z.number().int().nonnegative().optional(),
      cost_usd: z.number().nonnegative().optional(),
    })
    .optional(),
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
      // The agent's count when it gave one (every input token the model read), else an estimate.
      promptTokensEst: turn.agent?.input_tokens ?? estimateTokens(turn.prompt),
      finishReason: turn.interrupted ? 'interrupted' : 'stop',
      isRetry: false,
      clippy: {
        turn_id: turn.turn_id,
        byte_length: turn.byte_length,
        interrupted: turn.interrupted,
        truncated: turn.truncated,
        ...agentNumbers(turn.agent),
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
    ...usageTotals(turns),
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

type AgentNumbers = NonNullable<z.output<typeof SessionTurnInputSchema>['agent']>;

/** A turn's numbers as the navigator's reports name them (`llm_call.clippy`). */
function agentNumbers(agent: AgentNumbers | undefined): Record<string, unknown> {
  if (!agent) return {};
  return {
    ...(agent.model !== undefined ? { model: agent.model } : {}),
    ...(agent.input_tokens !== undefined ? { prompt_tokens: agent.input_tokens } : {}),
    ...(agent.output_tokens !== undefined ? { output_tokens: agent.output_tokens } : {}),
    ...(agent.cost_usd !== undefined ? { cost_usd: agent.cost_usd } : {}),
  };
}

/** The session's totals of what its agent reported (top-level `clippy`), absent when nothing was. */
function usageTotals(turns: { agent?: AgentNumbers | undefined }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of turns) {
    const a = t.agent;
    if (!a) continue;
    if (a.input_tokens !== undefined) out.prompt_tokens = (out.prompt_tokens ?? 0) + a.input_tokens;
    if (a.output_tokens !== undefined)
      out.output_tokens = (out.output_tokens ?? 0) + a.output_tokens;
    if (a.cost_usd !== undefined) out.cost_usd = (out.cost_usd ?? 0) + a.cost_usd;
  }
  return out;
}
