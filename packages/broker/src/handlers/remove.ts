import { HandlerError, findSession, type Handler } from './context.js';

export const remove: Handler<'remove'> = (request, context) => {
  const session = findSession(context, request.session);
  if (session.live) {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' is still running; kill it first (kill with remove: true does both)`,
    );
  }
  context.sessions.remove(session);
  return {};
};
