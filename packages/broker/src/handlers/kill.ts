import { DEFAULT_KILL_SIGNAL } from '../constants.js';
import { parseSignal } from '@clippy/system/pty';
import { HandlerError, findSession, type Handler } from './context.js';

export const kill: Handler<'kill'> = async (request, context) => {
  const session = findSession(context, request.session);
  const signal = parseSignal(request.signal ?? DEFAULT_KILL_SIGNAL);
  if (!signal) throw new HandlerError('invalid_argument', `unknown signal '${request.signal}'`);
  if (session.kind !== 'pty') {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' was registered by a wrapper: the broker does not own its process`,
    );
  }
  if (session.live) session.kill(signal);
  if (request.remove) {
    await session.waitExit();
    // `kill` never removes a worktree: the session stays listed, so `diff` and `remove` reach it.
    if (session.worktree) return { worktree_kept: session.worktree.record.path };
    if (context.sessions.resolve(session.id) === session) context.sessions.remove(session, 'kill');
  }
  return {};
};
