import type { Handler } from './context.js';

export const listSessions: Handler<'list_sessions'> = (_request, { sessions }) => ({
  sessions: sessions.all().map((s) => s.info()),
});
