import type { Handler } from './context.js';

export const listSessions: Handler<'list_sessions'> = (_request, { broker }) => ({
  sessions: broker.table.all().map((s) => s.info()),
});
