import { HandlerError, findSession, type Handler } from './context.js';
import { turnOp } from './turn-common.js';
import { injectInto } from '../turns/session-glue.js';

/** Injects the relay buffer into a session's input (waits for idle, bracketed paste, Enter confirmed). */
export const paste: Handler<'paste'> = (request, context) =>
  turnOp(async () => {
    const session = findSession(context, request.session);
    const entry = context.broker.relayBuffer;
    if (!entry)
      throw new HandlerError('buffer_empty', 'the relay buffer is empty: capture a turn first');
    const result = await injectInto(context.broker, session, entry, request);
    return {
      size: request.raw ? entry.content.length : Buffer.byteLength(entry.text),
      turn_id: entry.turnId,
      submitted: result.submitted,
    };
  });
