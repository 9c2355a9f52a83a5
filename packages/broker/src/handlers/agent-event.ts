import { isChannelSecret } from '../agents/hook-secret.js';
import { HandlerError, findSession, type Handler } from './context.js';

/**
 * An agent's own channel reports (its hook ran `clippy-hook`): the event goes to the session's
 * channel, which reads what it names (the agent's transcript, rollout or chat file) and joins
 * the turn it reports to the one the screen completes. Answered at once: the agent waits for
 * its hook (Claude Code draws its prompt after its Stop hooks ran), so the reading happens
 * after; a payload it cannot read is logged. A report counts only with the secret the
 * session's agent was given (in its environment, which its hooks inherit): one without it —
 * any other process that names the session — is refused, noted on the session and logged.
 */
export const agentEvent: Handler<'agent_event'> = (request, context) => {
  const session = findSession(context, request.session);
  const channel = session.turns?.channel;
  if (!channel || channel.channel.agent !== request.agent)
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' has no ${request.agent} channel (its preset is ${session.preset})`,
    );
  if (!isChannelSecret(channel.channel, request.secret)) {
    if (channel.refused(request.secret === undefined ? 'without' : 'with a wrong'))
      context.daemon.log.warn(
        { session: session.id, agent: request.agent, event: request.event },
        `agent channel: a ${request.event} report without the session's secret was refused (not from its agent)`,
      );
    throw new HandlerError(
      'unauthorized',
      `session '${session.name}' takes reports from its own agent only: this one did not carry the secret its agent was given`,
    );
  }
  channel
    .event(request.event, request.payload)
    .catch((err: unknown) =>
      context.daemon.log.warn(
        { err, session: session.id, agent: request.agent, event: request.event },
        'agent channel: an event could not be read',
      ),
    );
  return {};
};
