import { RequestError } from '@agentclientprotocol/sdk';
import { BrokerError } from '@clippy/protocol';

/**
 * Daemon answers that mean the editor (or the user's configuration) asked for something that
 * cannot be: invalid params. Others are the daemon's or the agent's trouble: internal errors,
 * with the daemon's message and code.
 */
const INVALID_PARAMS: ReadonlySet<string> = new Set([
  'cwd_not_found',
  'unknown_preset',
  'invalid_pattern',
  'invalid_argument',
  'invalid_message',
  'input_too_long',
]);

/** Daemon answers about a session that is not there. */
const NOT_FOUND: ReadonlySet<string> = new Set(['session_not_found', 'turn_not_found']);

/** Plain-language lead for the daemon's codes an editor user may meet. */
const WHAT: Record<string, string> = {
  target_busy:
    'the agent is busy with another turn (another editor, or a person typing in a terminal); send the prompt again when it is done',
  session_exited: 'the agent has exited',
  not_submitted: 'the agent did not react to Enter',
  spawn_failed: 'the agent could not be started',
  needs_input: 'the agent wants more input than the prompt gave',
};

/** An error for the editor: ACP's codes, the daemon's words. */
export function acpError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  if (err instanceof BrokerError) {
    const message = WHAT[err.code] ? `${WHAT[err.code]}: ${err.message}` : err.message;
    if (INVALID_PARAMS.has(err.code))
      return new RequestError(-32602, message, { clippy: err.code });
    if (NOT_FOUND.has(err.code)) return new RequestError(-32002, message, { clippy: err.code });
    return new RequestError(-32603, message, { clippy: err.code });
  }
  return new RequestError(-32603, err instanceof Error ? err.message : String(err));
}

/** The agent's process ended (or its session was removed) during a prompt. */
export function agentExited(
  name: string,
  exit: { exit_code: number | null; signal: string | null } | null,
): RequestError {
  const how = !exit
    ? 'its session was removed'
    : exit.signal
      ? `it was killed by ${exit.signal}`
      : `it exited with code ${exit.exit_code}`;
  return new RequestError(
    -32603,
    `the agent in clippy session ${name} stopped before it answered: ${how}`,
    {
      clippy: 'session_exited',
    },
  );
}
