import { findSession, type Handler } from './context.js';

/**
 * Where a session's worktree is, without running git: `clippy diff` on the same machine runs
 * git there itself and prints git's own output (docs/worktrees.md).
 */
export const getWorktree: Handler<'get_worktree'> = (request, context) => {
  const worktree = context.worktrees.worktreeOf(findSession(context, request.session));
  return { worktree: worktree.info(), object_format: worktree.record.object_format };
};
