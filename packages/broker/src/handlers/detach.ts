import { HandlerError, findSession, type Handler } from './context.js';

export const detach: Handler<'detach'> = (request, context) => {
  const session = findSession(context, request.session);
  if (!session.detach(context.connection)) {
    throw new HandlerError(
      'not_attached',
      `this connection is not attached to session '${session.name}'`,
    );
  }
  return {};
};
