import type { Handler } from './context.js';

/** Always ok (clippy's contract); ends the session if this connection registered it. */
export const deregister: Handler<'deregister'> = (request, { broker, connection }) => {
  const session = broker.table.resolve(request.session);
  if (session && connection.registered.has(session)) {
    connection.registered.delete(session);
    broker.endWrapperSession(session);
  }
  return {};
};
