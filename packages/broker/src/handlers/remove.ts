import { HandlerError, findSession, type Handler } from './context.js';

export const remove: Handler<'remove'> = async (request, context) => {
  const session = findSession(context, request.session);
  if (session.live) {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' is still running; kill it first (kill with remove: true does both)`,
    );
  }
  // Its worktree first: when it must stay (work in it, a lock), the session stays listed too.
  const worktree = session.worktree
    ? await context.worktrees.remove(session, request.force ?? false)
    : undefined;
  if (context.sessions.resolve(session.id) === session) context.sessions.remove(session, 'rm');
  return worktree ? { worktree_removed: worktree } : {};
};
