import { BrokerError } from '@clippy/protocol';

/**
 * A tool's failure, said so that the agent calling it can act: what is wrong and what to do. It
 * becomes the tool's result with `isError: true` (an MCP tool error, which the model reads),
 * never a protocol error.
 */
export class ToolError extends Error {
  constructor(
    message: string,
    /** The daemon's error code, when the daemon refused (`target_busy`, `session_exited`, …). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Plain-language lead for the daemon's codes an agent may meet. */
const WHAT: Record<string, string> = {
  target_busy:
    'the session is busy with another turn (or shows something other than its prompt): try again once it is idle (wait for its turn), or use force',
  session_exited: 'the session has exited: it takes no input (new_session starts another)',
  not_submitted: 'the text was typed but the session did not react to Enter',
  needs_input: 'the session still wants more input after the closing Enter',
  input_too_long: 'the text is longer than the session reads in one line',
  no_turn: 'the session has no completed turn yet',
  turn_not_found: 'no stored turn has that ID',
  no_worktree: 'the session runs in no worktree of its own (new_session with worktree makes one)',
  spawn_failed: 'the command could not be started',
  cwd_not_found: 'the working directory does not exist',
  unknown_preset: 'no turn preset has that name',
  duplicate_session: 'a live session already has that name',
};

/** The daemon's own words, without the code it appends (`… (target_busy)`). */
function brokerWords(err: BrokerError): string {
  return err.message.replace(/ \([a-z_]+\)$/u, '');
}

/** Any failure as a ToolError: the daemon's refusals with their code and a plain lead. */
export function toolErrorOf(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  if (err instanceof BrokerError) {
    const words = brokerWords(err);
    const lead = WHAT[err.code];
    return new ToolError(lead ? `${lead}: ${words}` : words, err.code);
  }
  if (err instanceof Error && err.name === 'ConnectionClosedError')
    return new ToolError(`the clippy daemon went away: ${err.message}`);
  return new ToolError(err instanceof Error ? err.message : String(err));
}
