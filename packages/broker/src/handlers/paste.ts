import { HandlerError, findSession, type Handler } from './context.js';
import { injectInto } from '../relay/inject-into-session.js';

/** Injects the relay buffer into a session's input (waits for idle or blocked, bracketed paste, Enter confirmed). */
export const paste: Handler<'paste'> = async (request, context) => {
  const session = findSession(context, request.session);
  const entry = context.relayBuffer.get();
  if (!entry)
    throw new HandlerError('buffer_empty', 'the relay buffer is empty: capture a turn first');
  const result = await injectInto(context.sessions, session, entry, request);
  return {
    size: request.raw ? entry.content.length : Buffer.byteLength(entry.text),
    turn_id: entry.turnId,
    submitted: result.submitted,
  };
};
