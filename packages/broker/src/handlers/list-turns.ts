import { findSession, type Handler } from './context.js';

export const listTurns: Handler<'list_turns'> = (request, context) => {
  findSession(context, request.session);
  // No turn is stored until the turn registry lands.
  return { turns: [] };
};
