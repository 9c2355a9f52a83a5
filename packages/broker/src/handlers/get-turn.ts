import { parseTurnId, type Turn } from '@clippy/protocol';
import { HandlerError, type Handler } from './context.js';
import { findTurn } from '../turn-ring/find-turn.js';
import { historyTurn } from '../store/history-turn.js';

/** One stored turn with its content: by `turn_id`, or a session's latest; `read` marks it read. */
export const getTurn: Handler<'get_turn'> = async (request, context) => {
  const answer = await findAny(request, context);
  if (request.read) {
    const session = context.sessions.resolve(answer.turn.session);
    if (session) context.notify.read(session, answer.turn.seq);
  }
  return answer;
};

async function findAny(
  request: Parameters<Handler<'get_turn'>>[0],
  context: Parameters<Handler<'get_turn'>>[1],
): Promise<{ turn: Turn }> {
  // The schema checked that turn_id is one (protocol's TurnIdSchema).
  if (request.turn_id !== undefined) {
    try {
      return { turn: findTurn(context.sessions, request.turn_id) };
    } catch (err) {
      // Evicted from the ring: a persisted session's history still has it.
      if (!(err instanceof HandlerError) || err.code !== 'turn_not_found') throw err;
      const id = parseTurnId(request.turn_id)!;
      const kept = await historyTurn(
        context.history,
        context.sessions.resolve(id.session),
        request.turn_id,
      );
      if (kept) return { turn: kept };
      throw err;
    }
  }
  if (request.session !== undefined) return { turn: findTurn(context.sessions, request.session) };
  throw new HandlerError('missing_field', 'get_turn needs `turn_id` or `session`');
}
