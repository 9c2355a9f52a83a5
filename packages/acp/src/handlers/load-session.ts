import type {
  AgentContext,
  LoadSessionRequest,
  LoadSessionResponse,
} from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';
import { replayTurns } from '../history.js';
import { findSession } from './find-session.js';

/**
 * `session/load`: reattaches an existing clippy session (by ID, or by name) and replays its turns
 * as the conversation. Prompts go to it from now on; an exited session shows its history and
 * refuses prompts.
 */
export async function loadSession(
  ctx: AcpContext,
  client: AgentContext,
  params: LoadSessionRequest,
): Promise<LoadSessionResponse> {
  const info = await findSession(ctx.link.daemon, params.sessionId);
  await ctx.link.watch(info.session);
  // Known by the ID the editor asked with (an ID or a name): updates go out under it.
  const session = ctx.sessions.add(params.sessionId, info, false);
  await replayTurns(ctx.link.daemon, client, session.id, session.clippy.id);
  return {};
}
