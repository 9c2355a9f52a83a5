import { HandlerError, type Handler } from './context.js';
import { findTurn } from '../detection/find-turn.js';

/** One stored turn with its content: by `turn_id`, or a session's latest. */
export const getTurn: Handler<'get_turn'> = (request, context) => {
  // The schema checked that turn_id is one (protocol's TurnIdSchema).
  if (request.turn_id !== undefined) return { turn: findTurn(context.sessions, request.turn_id) };
  if (request.session !== undefined) return { turn: findTurn(context.sessions, request.session) };
  throw new HandlerError('missing_field', 'get_turn needs `turn_id` or `session`');
};
