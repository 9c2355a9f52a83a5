import { HandlerError, findLiveSession, type Handler } from './context.js';

export const send: Handler<'send'> = async (request, context) => {
  const session = findLiveSession(context, request.session);
  if (session.kind !== 'pty') {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' has no broker-owned PTY to write to`,
    );
  }
  const submitted = await session.send(request.text, request.enter ?? false);
  return { submitted };
};
