import { findLiveSession, type Handler } from './context.js';
import { turnOp } from './turn-common.js';
import { TurnError } from '../turns/errors.js';
import { injectInto } from '../turns/session-glue.js';

/**
 * Types text into a session with the injection algorithm (wait for idle or blocked unless `force`,
 * bracketed paste when enabled, Enter as a separate write, confirmed); a wrapper session gets
 * an `inject` push. An Enter the session did not react to is `submitted: false`, not an error.
 */
export const send: Handler<'send'> = (request, context) =>
  turnOp(async () => {
    const session = findLiveSession(context, request.session);
    const text = request.text;
    try {
      const result = await injectInto(
        context.broker,
        session,
        { text, content: Buffer.from(text, 'utf8') },
        { enter: request.enter ?? false, force: request.force ?? false, answers: true },
      );
      return { submitted: result.submitted };
    } catch (err) {
      if (err instanceof TurnError && err.code === 'not_submitted') return { submitted: false };
      throw err;
    }
  });
