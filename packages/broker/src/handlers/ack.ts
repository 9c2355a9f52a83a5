import { HandlerError, findSession, type Handler } from './context.js';

/** Usually a notification (id 0, no answer): the client consumed `bytes` more output bytes. */
export const ack: Handler<'ack'> = (request, context) => {
  const session = findSession(context, request.session);
  if (!session.ack(context.connection, request.bytes)) {
    throw new HandlerError(
      'not_attached',
      `this connection is not attached to session '${session.name}'`,
    );
  }
  return {};
};
