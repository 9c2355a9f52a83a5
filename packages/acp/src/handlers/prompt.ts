import {
  RequestError,
  type AgentContext,
  type PromptRequest,
  type PromptResponse,
} from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';
import { PromptTurn } from '../prompt-turn.js';
import { promptText } from '../prompt-text.js';

/** `session/prompt`: one turn of the agent (see PromptTurn). */
export async function prompt(
  ctx: AcpContext,
  client: AgentContext,
  params: PromptRequest,
): Promise<PromptResponse> {
  const session = ctx.sessions.get(params.sessionId);
  if (!session) throw RequestError.sessionNotFound(params.sessionId);
  if (session.turn) {
    throw new RequestError(
      -32600,
      'a prompt is still running in this session: cancel it (session/cancel) or wait for its answer',
    );
  }
  const text = promptText(params.prompt);
  const turn = new PromptTurn(ctx.link, session.clippy, session.id, client, text);
  session.turn = turn;
  try {
    return { stopReason: await turn.run() };
  } finally {
    session.turn = null;
  }
}
