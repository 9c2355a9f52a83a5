import { findSession, type Handler } from './context.js';

/**
 * An attach client's terminal gained or lost focus. Only a client attached to the session may
 * say so; any other report is ignored (a notification has no answer to carry an error).
 */
export const focus: Handler<'focus'> = (request, context) => {
  const session = findSession(context, request.session);
  const { connection } = context;
  if (!session.isAttached(connection)) return {};
  if (request.focused) {
    context.focus.focusIn(session, connection);
    context.notify.read(session);
  } else context.focus.focusOut(session, connection);
  return {};
};
