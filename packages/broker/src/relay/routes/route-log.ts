import type { RouteLogEntry } from '@clippy/protocol';
import type { Logger } from '../../log.js';

/** Route log entries kept for `clippy route log` (newest kept; the daemon log has them all). */
export const ROUTE_LOG_LIMIT = 1_000;

/**
 * What routes did and why they did not: every fire, skip and drop, with its reason. Nothing a
 * route leaves out is silent: each entry also goes to the daemon log and to subscribers.
 */
export class RouteLog {
  private readonly entries: RouteLogEntry[] = [];

  constructor(
    private readonly log: Logger,
    private readonly publish: (entry: RouteLogEntry) => void,
  ) {}

  /** Records an entry; `warn` puts it in the daemon log as a warning (dropped and failed ones always are). */
  add(entry: Omit<RouteLogEntry, 'at'>, { warn = false } = {}): void {
    const full: RouteLogEntry = { at: Date.now(), ...entry };
    this.entries.push(full);
    if (this.entries.length > ROUTE_LOG_LIMIT)
      this.entries.splice(0, this.entries.length - ROUTE_LOG_LIMIT);
    const fields = { route: full.route, turns: full.turn_ids, to: full.to, reason: full.reason };
    if (warn || full.event === 'dropped' || full.event === 'failed')
      this.log.warn(fields, `route ${full.event}`);
    else this.log.info(fields, `route ${full.event}`);
    this.publish(full);
  }

  /** The newest `limit` entries of `routes` (all when null), oldest first. */
  list(routes: ReadonlySet<string> | null, limit: number): RouteLogEntry[] {
    const chosen = routes ? this.entries.filter((e) => routes.has(e.route)) : this.entries;
    return chosen.slice(-limit);
  }
}
