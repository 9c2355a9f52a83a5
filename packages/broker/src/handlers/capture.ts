import { findSession, type Handler } from './context.js';
import { relayEntryOf } from '../relay/relay-buffer.js';
import { findTurn } from '../turn-ring/find-turn.js';

/** Copies the session's latest turn into the global relay buffer (clippy's `capture`). */
export const capture: Handler<'capture'> = (request, context) => {
  const session = findSession(context, request.session);
  const turn = findTurn(context.sessions, session.id);
  context.relayBuffer.set(relayEntryOf(turn));
  return {
    size: turn.byte_length,
    turn_id: turn.turn_id,
    text_size: Buffer.byteLength(turn.text),
  };
};
