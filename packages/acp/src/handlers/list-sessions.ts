import type { ListSessionsRequest, ListSessionsResponse } from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';

/**
 * `session/list`: clippy's running sessions (in the editor's directory, when it asks for one),
 * any of which `session/load` reattaches: an agent started in a terminal can continue in the
 * editor.
 */
export async function listSessions(
  ctx: AcpContext,
  params: ListSessionsRequest,
): Promise<ListSessionsResponse> {
  const { sessions } = await ctx.link.daemon.request('list_sessions', {});
  return {
    sessions: sessions
      .filter((s) => s.kind === 'pty' && s.state !== 'exited')
      .filter((s) => !params.cwd || s.cwd === params.cwd)
      .map((s) => ({
        sessionId: s.session,
        cwd: s.cwd,
        title: `${s.name}: ${[s.command, ...s.args].join(' ')}`,
        updatedAt: new Date(s.created_at).toISOString(),
      })),
  };
}
