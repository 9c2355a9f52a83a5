import { findSession, type Handler } from './context.js';

/** A session's changes in its worktree against its base (docs/worktrees.md). */
export const diff: Handler<'diff'> = async (request, context) => {
  const session = findSession(context, request.session);
  const d = await context.worktrees.diff(session, {
    detail: request.detail,
    paths: request.paths,
    context: request.context,
  });
  return {
    worktree: d.worktree.info(),
    base: d.base,
    files: d.files,
    totals: d.totals,
    truncated: d.truncated,
    ...(d.text !== undefined ? { text: d.text } : {}),
  };
};
