import { HandlerError, findSession, type Handler } from './context.js';

/** Answered once the client's terminal is given back, when the daemon wrote it (direct attach). */
export const detach: Handler<'detach'> = async (request, context) => {
  const session = findSession(context, request.session);
  const released = session.detach(context.connection);
  if (!released) {
    throw new HandlerError(
      'not_attached',
      `this connection is not attached to session '${session.name}'`,
    );
  }
  await released;
  return {};
};
