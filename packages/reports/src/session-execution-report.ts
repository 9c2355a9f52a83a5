import { parseOrThrow } from './errors.js';
import type { ExecutionAction, ExecutionReportInput } from './execution-report.js';
import { SessionRunReportInputSchema, type SessionRunReportInput } from './session-run-report.js';

export interface SessionExecutionReportOptions {
  /** Operating system named in the Environment section (default: process.platform). */
  os?: string;
  /** End time for a session still running (default: now). */
  now?: Date;
}

/**
 * Maps a wrapped agent session to Execution Report input: one action per turn, oldest first,
 * named after its turn ID; an interrupted turn is a FAILURE (the answer was cut short), every
 * other turn a SUCCESS with the answer text as its output.
 */
export function sessionExecutionReport(
  input: SessionRunReportInput,
  options: SessionExecutionReportOptions = {},
): ExecutionReportInput {
  const { session, turns } = parseOrThrow(SessionRunReportInputSchema, input, 'agent session');
  const ordered = [...turns].sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
  const actions: ExecutionAction[] = ordered.map((turn) => {
    const took = `${(turn.duration_ms / 1000).toFixed(2)} seconds`;
    const prompt = JSON.stringify(turn.prompt);
    const action: ExecutionAction = {
      name: `turn ${turn.turn_id}`,
      status: turn.interrupted ? 'FAILURE' : 'SUCCESS',
      details:
        `Answered ${prompt} in ${took} (${turn.byte_length} bytes` +
        `${turn.truncated ? ', truncated at the per-turn cap' : ''}).`,
      output: turn.text,
    };
    if (turn.interrupted)
      action.error = 'Interrupted (Ctrl-C) before the agent finished its answer.';
    return action;
  });
  const end = session.exitedAt ?? options.now ?? new Date();
  const start = session.createdAt;
  return {
    startTime: start,
    endTime: end.getTime() < start.getTime() ? start : end,
    os: options.os ?? process.platform,
    cwd: session.cwd,
    actions,
  };
}
