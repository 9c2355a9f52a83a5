import { parseTurnPosition } from '@clippy/protocol';
import { HandlerError, findSession, type Handler } from './context.js';

/**
 * Waits for the session's next turn: the first turn after `after` (which may already be
 * stored; `<session>:0` means any), else the first to complete after this request. `after`
 * must be a position of this session that exists (a later one is a mistake, not a wait).
 */
export const waitTurn: Handler<'wait_turn'> = async (request, context) => {
  const session = findSession(context, request.session);
  const turns = session.turns;
  const count = turns?.ring.count ?? 0;
  let after = count;
  if (request.after !== undefined) {
    // The schema checked the format (protocol's TurnPositionSchema).
    const position = parseTurnPosition(request.after)!;
    if (context.sessions.resolve(position.session) !== session) {
      throw new HandlerError(
        'invalid_argument',
        `turn ${request.after} is not one of session '${session.name}' (${session.id})`,
      );
    }
    if (position.seq > count) {
      throw new HandlerError(
        'turn_not_found',
        `turn ${request.after} does not exist yet: ${session.name}'s latest is ${session.name}:${count}`,
      );
    }
    after = position.seq;
  }
  if (!turns)
    throw new HandlerError('session_exited', `session '${session.name}' has no turn detection`);
  const abort = new AbortController();
  const cancel = () => abort.abort();
  context.connection.cleanups.add(cancel);
  try {
    const turn = await turns.waitTurn(after, request.timeout_ms, abort.signal);
    // The waiter shows the answer itself (ask, wait), as one that was waiting when the turn
    // completed does (SessionTurns.lastAwaitedSeq): read, even when it came before the wait.
    context.notify.read(session, turn.seq);
    return { turn };
  } finally {
    context.connection.cleanups.delete(cancel);
  }
};
