import type { Handler } from './context.js';

export const unsubscribe: Handler<'unsubscribe'> = (_request, { connection }) => {
  connection.subscription = null;
  return {};
};
