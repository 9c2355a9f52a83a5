import { HandlerError, findSession, type Handler } from './context.js';

/**
 * An agent's own channel reports (its hook ran `clippy-hook`): the event goes to the session's
 * channel, which reads what it names (the agent's transcript, rollout or chat file) and joins
 * the turn it reports to the one the screen completes. Answered at once: the agent waits for
 * its hook (Claude Code draws its prompt after its Stop hooks ran), so the reading happens
 * after; a payload it cannot read is logged.
 */
export const agentEvent: Handler<'agent_event'> = (request, context) => {
  const session = findSession(context, request.session);
  const channel = session.turns?.channel;
  if (!channel || channel.channel.agent !== request.agent)
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' has no ${request.agent} channel (its preset is ${session.preset})`,
    );
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
