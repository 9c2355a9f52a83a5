import type { Handler } from './context.js';
import { relayEntryOf } from '../relay/relay-buffer.js';
import { findTurn } from '../turn-ring/find-turn.js';

/** Copies a stored turn, by ID, into the global relay buffer. */
export const captureById: Handler<'capture_by_id'> = (request, context) => {
  // The schema checked that turn_id is one (protocol's TurnIdSchema).
  const turn = findTurn(context.sessions, request.turn_id);
  context.relayBuffer.set(relayEntryOf(turn));
  return {
    size: turn.byte_length,
    turn_id: turn.turn_id,
    text_size: Buffer.byteLength(turn.text),
  };
};
