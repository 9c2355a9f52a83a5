import type { DeliveryQueue } from './delivery-queue.js';
import type { RouteLog } from './route-log.js';
import type { TemplateDiff } from './templates.js';

/** What a leg's doings touch: the route log, and the messages waiting for targets. */
export interface RouteParts {
  log: RouteLog;
  queue: DeliveryQueue;
  /** A source's worktree diff, for templates that show one (null: it has none). */
  diffOf?: ((session: string) => Promise<TemplateDiff> | null) | undefined;
}
