import type { Handler } from './context.js';
import { findOwnSession } from './wrapper-session.js';
import { HandlerError } from './context.js';

/** A wrapper publishes a completed turn of its session: stored in the ring like a detected one. */
export const turnCompleted: Handler<'turn_completed'> = (request, context) => {
  const session = findOwnSession(context, request.session);
  if (!session.turns)
    throw new HandlerError('internal_error', `session '${session.name}' has no turn ring`);
  const content = Buffer.from(request.content);
  const stored = session.turns.publish({
    content,
    text: request.text ?? content.toString('utf8'),
    prompt: request.prompt ?? '',
    interrupted: request.interrupted,
    startedAt: request.timestamp - (request.duration_ms ?? 0),
    endedAt: request.timestamp,
  });
  return { turn_id: stored.turn_id };
};
