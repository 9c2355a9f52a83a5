import { findSession, type Handler } from './context.js';

/** A session's stored turns, newest first, without content. */
export const listTurns: Handler<'list_turns'> = (request, context) => {
  const session = findSession(context, request.session);
  return { turns: session.turns?.ring.list(request.limit) ?? [] };
};
