import { HandlerError, findSession, type HandlerContext } from './context.js';
import type { Session } from '../sessions/session.js';

/** The session, which this connection must have registered (wrapper-only requests). */
export function findOwnSession(context: HandlerContext, ref: string): Session {
  const session = findSession(context, ref);
  if (!context.connection.registered.has(session)) {
    throw new HandlerError(
      'not_wrapper',
      `only the connection that registered '${session.name}' may do this`,
    );
  }
  return session;
}
