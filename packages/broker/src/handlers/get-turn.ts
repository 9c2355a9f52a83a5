import { HandlerError, type Handler } from './context.js';
import { findTurn } from '../turns/session-glue.js';
import { parseTurnId } from '../turns/turn-id.js';

/** One stored turn with its content: by `turn_id`, or a session's latest. */
export const getTurn: Handler<'get_turn'> = (request, context) => {
  if (request.turn_id !== undefined) {
    if (!parseTurnId(request.turn_id)) {
      throw new HandlerError(
        'turn_not_found',
        `'${request.turn_id}' is not a turn ID (<session>:<seq>)`,
      );
    }
    return { turn: findTurn(context.sessions, request.turn_id) };
  }
  if (request.session !== undefined) return { turn: findTurn(context.sessions, request.session) };
  throw new HandlerError('missing_field', 'get_turn needs `turn_id` or `session`');
};
