import { HandlerError, findSession, type Handler } from './context.js';

/**
 * Waits for the session's next turn. Until turn detection lands no turn ever completes, so
 * the wait ends with `timeout`, `session_exited`, or the connection closing; it never leaks.
 */
export const waitTurn: Handler<'wait_turn'> = (request, context) => {
  const session = findSession(context, request.session);
  if (!session.live)
    throw new HandlerError('session_exited', `session '${session.name}' has exited`);
  const { connection } = context;
  return new Promise((_resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
    const finish = (error: HandlerError) => {
      if (timer) clearTimeout(timer);
      connection.cleanups.delete(cancel);
      reject(error);
    };
    const cancel = () => finish(new HandlerError('timeout', 'the connection closed'));
    connection.cleanups.add(cancel);
    if (request.timeout_ms !== undefined) {
      timer = setTimeout(
        () =>
          finish(new HandlerError('timeout', `no turn completed within ${request.timeout_ms} ms`)),
        request.timeout_ms,
      );
    }
    void session
      .waitExit()
      .then(() => finish(new HandlerError('session_exited', `session '${session.name}' exited`)));
  });
};
