import { HandlerError, findLiveSession, type Handler } from './context.js';

export const input: Handler<'input'> = (request, context) => {
  const session = findLiveSession(context, request.session);
  if (session.kind !== 'pty') {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' has no broker-owned PTY to write to`,
    );
  }
  session.input(request.data, context.connection);
  return {};
};
