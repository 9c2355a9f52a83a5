import { findSession, type Handler } from './context.js';

/** Control characters would move the cursor or change modes in the user's terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/gu;

/**
 * Sends a one-line message to every terminal attached to the session: their clients show it, or
 * the daemon writes it into the terminals it writes itself (direct attach).
 */
export const notice: Handler<'notice'> = (request, context) => {
  const session = findSession(context, request.session);
  const text = request.text.replace(CONTROL_CHARACTERS, ' ');
  return { delivered: session.notice(text) };
};
