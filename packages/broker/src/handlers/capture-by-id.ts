import { HandlerError, type Handler } from './context.js';
import { relayEntryOf } from '../turns/relay-buffer.js';
import { findTurn } from '../turns/session-glue.js';
import { parseTurnId } from '../turns/turn-id.js';

/** Copies a stored turn, by ID, into the global relay buffer. */
export const captureById: Handler<'capture_by_id'> = (request, context) => {
  if (!parseTurnId(request.turn_id)) {
    throw new HandlerError(
      'turn_not_found',
      `'${request.turn_id}' is not a turn ID (<session>:<seq>)`,
    );
  }
  const turn = findTurn(context.sessions, request.turn_id);
  context.relayBuffer.set(relayEntryOf(turn));
  return { size: turn.byte_length, turn_id: turn.turn_id };
};
