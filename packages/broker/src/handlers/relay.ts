import { findSession, type Handler } from './context.js';
import { relayEntryOf } from '../relay/relay-buffer.js';
import { findTurn } from '../turn-ring/find-turn.js';
import { injectInto } from '../relay/inject-into-session.js';

/** Capture (into the relay buffer) and paste in one step: FROM's latest turn or a turn ID, into TO. */
export const relay: Handler<'relay'> = async (request, context) => {
  const target = findSession(context, request.to);
  const turn = findTurn(context.sessions, request.from);
  const entry = relayEntryOf(turn);
  context.relayBuffer.set(entry);
  const result = await injectInto(context.sessions, target, entry, request);
  return {
    size: request.raw ? entry.content.length : Buffer.byteLength(entry.text),
    turn_id: entry.turnId,
    submitted: result.submitted,
  };
};
