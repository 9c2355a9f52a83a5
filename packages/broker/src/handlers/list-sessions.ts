import type { Handler } from './context.js';

export const listSessions: Handler<'list_sessions'> = async (
  _request,
  { sessions, historyUnavailable, worktrees },
) => {
  // Worktrees' change counts: fresh ones, or the last ones if counting takes long.
  await worktrees.freshen(sessions.all());
  return {
    sessions: sessions.all().map((s) => s.info()),
    // Persisted sessions are missing from the list when the history could not be read.
    ...(historyUnavailable !== null ? { history_unavailable: historyUnavailable } : {}),
  };
};
