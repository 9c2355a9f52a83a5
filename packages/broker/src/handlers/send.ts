import { KeyError, encodeKeys } from '@clippy/protocol';
import { HandlerError, findLiveSession, type Handler } from './context.js';
import { injectInto } from '../relay/inject-into-session.js';

/**
 * Types text into a session with the injection algorithm (wait for idle or blocked unless
 * `force`, one bracketed paste when the program enabled paste mode, Enter as a separate write,
 * confirmed); a wrapper session gets an `inject` push. An
 * Enter the session did not react to is `submitted: false`, not an error. With `keys`, presses
 * them at once, as a keyboard would (no waiting: keys are for menus and interrupts).
 */
export const send: Handler<'send'> = async (request, context) => {
  const session = findLiveSession(context, request.session);
  if ((request.text === undefined) === (request.keys === undefined))
    throw new HandlerError('invalid_argument', 'send takes exactly one of text and keys');
  if (request.keys) {
    if (session.kind !== 'pty')
      throw new HandlerError(
        'invalid_argument',
        `session '${session.name}' is a wrapper: it takes text, not keys`,
      );
    let bytes: string;
    try {
      const keys = request.enter ? [...request.keys, 'Enter'] : request.keys;
      bytes = encodeKeys(keys, { applicationCursor: session.output.applicationCursor });
    } catch (err) {
      if (err instanceof KeyError) throw new HandlerError('invalid_argument', err.message);
      throw err;
    }
    session.input(Buffer.from(bytes, 'utf8'));
    return { submitted: request.enter ?? false };
  }
  const text = request.text!;
  if (request.enter && text.trim() === '')
    throw new HandlerError(
      'invalid_argument',
      'the text is empty: there is nothing to submit (to press Enter alone, send the key: keys ["Enter"])',
    );
  try {
    const result = await injectInto(
      context.sessions,
      session,
      { text, content: Buffer.from(text, 'utf8') },
      {
        enter: request.enter ?? false,
        force: request.force ?? false,
        complete: request.complete ?? false,
        ...(request.idle_wait_ms !== undefined ? { idleWaitMs: request.idle_wait_ms } : {}),
      },
    );
    return { submitted: result.submitted };
  } catch (err) {
    if (err instanceof HandlerError && err.code === 'not_submitted') return { submitted: false };
    throw err;
  }
};
