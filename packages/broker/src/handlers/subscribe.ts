import type { Handler } from './context.js';

export const subscribe: Handler<'subscribe'> = (request, { connection }) => {
  connection.subscription = {
    events: request.events ? new Set(request.events) : null,
    sessions: request.sessions ?? null,
  };
  return {};
};
