import type { CancelNotification } from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';

/** `session/cancel`: the running prompt interrupts the agent and ends `cancelled`. */
export function cancel(ctx: AcpContext, params: CancelNotification): void {
  ctx.sessions.get(params.sessionId)?.turn?.cancel();
}
