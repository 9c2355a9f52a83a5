import { parseTurnPosition } from '@clippy/protocol';
import { HandlerError, findSession, type Handler } from './context.js';

/**
 * Waits for the session's next turn: the first turn after `after` (which may already be
 * stored; `<session>:0` means any), else the first to complete after this request.
 */
export const waitTurn: Handler<'wait_turn'> = async (request, context) => {
  const session = findSession(context, request.session);
  const turns = session.turns;
  let after = turns?.ring.count ?? 0;
  // The schema checked the format (protocol's TurnPositionSchema).
  if (request.after !== undefined) after = parseTurnPosition(request.after)?.seq ?? after;
  if (!turns)
    throw new HandlerError('session_exited', `session '${session.name}' has no turn detection`);
  const abort = new AbortController();
  const cancel = () => abort.abort();
  context.connection.cleanups.add(cancel);
  try {
    return { turn: await turns.waitTurn(after, request.timeout_ms, abort.signal) };
  } finally {
    context.connection.cleanups.delete(cancel);
  }
};
