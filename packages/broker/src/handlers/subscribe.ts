import { EventNameSchema, type EventName } from '@clippy/protocol';
import type { Handler } from './context.js';

/**
 * The events of a subscription that names none: all but `turn_progress`, a stream of texts that
 * only a client showing an answer as it grows asks for (by name).
 */
const DEFAULT_EVENTS: readonly EventName[] = EventNameSchema.options.filter(
  (e) => e !== 'turn_progress',
);

export const subscribe: Handler<'subscribe'> = (request, { connection, progress }) => {
  connection.subscription = {
    events: new Set(request.events ?? DEFAULT_EVENTS),
    sessions: request.sessions ?? null,
  };
  progress.subscriptionsChanged();
  return {};
};
