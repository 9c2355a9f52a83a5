import type { Handler } from './context.js';
import { findOwnSession } from './wrapper-session.js';

/**
 * A wrapper publishes a turn. Until the turn registry exists the turn is counted (so its ID is
 * stable and never reused) but not stored.
 */
export const turnCompleted: Handler<'turn_completed'> = (request, context) => {
  const session = findOwnSession(context, request.session);
  session.turnCount += 1;
  return { turn_id: `${session.id}:${session.turnCount}` };
};
