import type { Handler } from './context.js';
import { findOwnSession } from './wrapper-session.js';

export const setState: Handler<'set_state'> = (request, context) => {
  const session = findOwnSession(context, request.session);
  if (session.live) session.setState(request.state);
  session.notifyActivity();
  return {};
};
