import { BrokerError, type RouteInfo, type RouteLogEntry } from '@clippy/protocol';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { formatAge, renderTable } from '../table.js';

/** Answers that mean the command line was wrong: a usage error (64), as for `new --pattern`. */
const USAGE_CODES = new Set([
  'invalid_pattern',
  'invalid_template',
  'invalid_argument',
  'duplicate_route',
  'invalid_message',
]);

/** Runs a route request, giving the broker's refusals their exit codes. */
export async function routeCall<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BrokerError) {
      const message = err.message.replace(/ \([a-z_]+\)$/u, '');
      throw new CliError(
        `${message} (${err.code})`,
        USAGE_CODES.has(err.code) ? EXIT.usage : EXIT.failure,
      );
    }
    throw err;
  }
}

/** `claude → codex`, `a, b, c ⇒ synth` for a fan-in. */
export function routePath(r: RouteInfo): string {
  return `${r.from.map((f) => f.name).join(', ')} ${r.kind === 'fan_in' ? '⇒' : '→'} ${r.to.name}`;
}

/** The line `route add` / `loop` print for each route made. */
export function addedLine(r: RouteInfo): string {
  const filter = r.when ? `, when /${r.when}/` : '';
  const loop = r.loop ? `, until /${r.loop.until}/, ${r.loop.rounds} rounds` : '';
  return `route ${r.route}: ${routePath(r)} (template ${r.template}${filter}${loop})`;
}

export function routesTable(routes: RouteInfo[]): string {
  const now = Date.now();
  return renderTable(
    [
      { header: 'ROUTE' },
      { header: 'KIND' },
      { header: 'FROM → TO', max: 40 },
      { header: 'STATE' },
      { header: 'FIRED', right: true },
      { header: 'QUEUED', right: true },
      { header: 'TEMPLATE' },
      { header: 'AGE', right: true },
      { header: 'NOTE', max: 60 },
    ],
    routes.map((r) => [
      r.route,
      r.kind === 'fan_in' ? 'fan-in' : r.kind,
      routePath(r),
      r.failed ? `${r.state} (failed)` : r.state,
      String(r.fired),
      String(r.queued),
      r.template,
      formatAge(now - r.created_at),
      r.reason ??
        [
          r.when ? `when /${r.when}/` : '',
          r.loop ? `round ${r.loop.round}/${r.loop.rounds}, until /${r.loop.until}/` : '',
        ]
          .filter(Boolean)
          .join('; '),
    ]),
  );
}

/** One log entry as a line: `12:01:02 r1 fired claude:3 → codex`. */
export function logLine(e: RouteLogEntry): string {
  const time = new Date(e.at).toTimeString().slice(0, 8);
  const turns = e.turn_ids.length > 0 ? ` ${e.turn_ids.join(',')}` : '';
  const to = e.to ? ` → ${e.to}` : '';
  const why = e.reason ? ` (${e.reason})` : '';
  return `${time} ${e.route} ${e.event}${turns}${to}${why}`;
}
