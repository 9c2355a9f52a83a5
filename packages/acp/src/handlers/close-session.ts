import { RequestError, type CloseSessionRequest } from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';

/**
 * `session/close`: the editor is done with the session. One this `clippy acp` started is ended
 * (its turns stay readable in clippy until it is removed); one it only attached to goes on.
 */
export async function closeSession(ctx: AcpContext, params: CloseSessionRequest): Promise<void> {
  const session = ctx.sessions.get(params.sessionId);
  if (!session) throw RequestError.sessionNotFound(params.sessionId);
  session.turn?.cancel();
  ctx.sessions.delete(session.id);
  if (!ctx.sessions.all().some((s) => s.clippy.id === session.clippy.id))
    await ctx.link.unwatch(session.clippy.id);
  if (session.started) {
    await ctx.link.daemon.request('kill', { session: session.clippy.id }).catch(() => {
      // Already gone: nothing to end.
    });
  }
}
