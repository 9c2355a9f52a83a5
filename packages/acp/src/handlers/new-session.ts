import type { NewSessionRequest, NewSessionResponse } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';
import { acpError } from '../errors.js';
import { findSession } from './find-session.js';

/**
 * The agent's terminal size in a session `clippy acp` starts: wider than the usual 80 columns, so
 * that a TUI wraps its answer less (the answer's text keeps the screen's line breaks). A person
 * who attaches later gets their own size (the latest client's wins).
 */
export const ACP_COLS = 120;
export const ACP_ROWS = 40;

/**
 * `session/new`: with `--session`, the ACP session runs in that clippy session; otherwise the
 * agent command starts in a new clippy session in the editor's directory. Either way the session
 * is clippy's like any other: listed by `clippy ls`, attachable, relayable.
 */
export async function newSession(
  ctx: AcpContext,
  params: NewSessionRequest,
): Promise<NewSessionResponse> {
  const { daemon } = ctx.link;
  if (ctx.options.session) {
    const info = await findSession(daemon, ctx.options.session);
    if (info.state === 'exited') {
      throw new RequestError(
        -32603,
        `clippy session ${info.name} has exited: start it again (clippy new) or run clippy acp without --session`,
      );
    }
    await ctx.link.watch(info.session);
    return { sessionId: ctx.sessions.add(info.session, info, false).id };
  }
  const agent = ctx.options.agent;
  if (!agent) throw new RequestError(-32603, 'clippy acp has no agent command to start');
  let created;
  try {
    created = await daemon.request('spawn', {
      command: agent.command,
      args: agent.args,
      cwd: params.cwd,
      env: agent.env,
      cols: ACP_COLS,
      rows: ACP_ROWS,
      ...(agent.preset ? { preset: agent.preset } : {}),
      ...(agent.agentChannel !== undefined ? { agent_channel: agent.agentChannel } : {}),
    });
  } catch (err) {
    throw acpError(err);
  }
  await ctx.link.watch(created.session);
  return { sessionId: ctx.sessions.add(created.session, created, true).id };
}
