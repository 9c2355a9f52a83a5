import type { Handler } from './context.js';

/** Always ok (clippy's contract); ends the session if this connection registered it. */
export const deregister: Handler<'deregister'> = (request, { sessions, connection }) => {
  const session = sessions.resolve(request.session);
  if (session && connection.registered.has(session)) {
    connection.registered.delete(session);
    sessions.endWrapper(session);
  }
  return {};
};
