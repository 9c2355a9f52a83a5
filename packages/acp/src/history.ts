import type { AgentContext } from '@agentclientprotocol/sdk';
import type { ClippyClient } from '@clippy/client';

/**
 * `session/load`: the session's stored turns, oldest first, as the conversation an editor shows —
 * each turn's input as the user's message and its text as the agent's. The daemon keeps a ring
 * of each session's latest turns (and, with `--persist`, a history on disk): older ones are gone.
 */
export async function replayTurns(
  daemon: ClippyClient,
  client: AgentContext,
  sessionId: string,
  clippySession: string,
): Promise<number> {
  const { turns } = await daemon.request('list_turns', { session: clippySession });
  for (const meta of [...turns].reverse()) {
    const { turn } = await daemon.request('get_turn', { turn_id: meta.turn_id });
    if (turn.prompt !== '') {
      await client.notify('session/update', {
        sessionId,
        update: {
          sessionUpdate: 'user_message_chunk',
          messageId: `${turn.turn_id}:prompt`,
          content: { type: 'text', text: turn.prompt },
        },
      });
    }
    await client.notify('session/update', {
      sessionId,
      update: {
        sessionUpdate: 'agent_message_chunk',
        messageId: turn.turn_id,
        content: { type: 'text', text: turn.text },
      },
    });
  }
  return turns.length;
}
