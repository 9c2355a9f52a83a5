import { HandlerError, type Handler } from './context.js';
import { noTurn, turnOrSession } from './turn-stubs.js';

export const getTurn: Handler<'get_turn'> = (request, context) => {
  if (request.turn_id !== undefined) turnOrSession(context, request.turn_id);
  if (request.session !== undefined) noTurn(context, request.session);
  throw new HandlerError('missing_field', "get_turn: missing field 'turn_id' (or 'session')");
};
