import type { Handler } from './context.js';

export const listSessions: Handler<'list_sessions'> = (
  _request,
  { sessions, historyUnavailable },
) => ({
  sessions: sessions.all().map((s) => s.info()),
  // Persisted sessions are missing from the list when the history could not be read.
  ...(historyUnavailable !== null ? { history_unavailable: historyUnavailable } : {}),
});
