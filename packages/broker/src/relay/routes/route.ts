import type { RouteInfo } from '@clippy/protocol';
import { compileUserRegex, type LineRegex } from '@clippy/turns';
import { HandlerError } from '../../errors.js';
import type { End, Leg, RouteKind } from './records.js';
import type { RouteParts } from './route-parts.js';
import { WRAP_TEMPLATE, checked, resolveTemplate } from './templates.js';

// Making a leg (a plain route, a fan-in, or one leg of a loop: the records are in records.ts)
// with its options checked, what a leg says of itself, and ending one.

/** Default bound on a chain of automatic injections set off by one turn (loops have their own end). */
export const DEFAULT_HOP_LIMIT = 10;
/** Turn IDs remembered per route to fire each turn at most once, whatever happens to events. */
const FIRED_MEMORY = 256;

export interface RouteOptions {
  name?: string | undefined;
  template?: string | undefined;
  wrap?: string | undefined;
  when?: string | undefined;
  include_interrupted?: boolean | undefined;
  hop_limit?: number | undefined;
}

/** A user pattern on the linear-time engine (as prompt patterns); `invalid_pattern` naming the option. */
export function pattern(option: string, source: string): LineRegex {
  try {
    new RegExp(source, 'u');
    return compileUserRegex(source);
  } catch (err) {
    throw new HandlerError('invalid_pattern', `${option} '${source}': ${(err as Error).message}`);
  }
}

/** Refuses a template and `--wrap` together (the first check of a route's options). */
export function oneTemplate(opts: RouteOptions): void {
  if (opts.template !== undefined && opts.wrap !== undefined) {
    throw new HandlerError('invalid_argument', 'give a template or --wrap, not both');
  }
}

/** A new, active leg; its template and `--when` are checked here (refused with the reason). */
export function makeLeg(
  name: string,
  kind: RouteKind,
  from: End[],
  to: End,
  opts: RouteOptions,
  defaultTemplate: string,
  env: Record<string, string | undefined>,
): Leg {
  const template =
    opts.wrap !== undefined
      ? checked('wrap', WRAP_TEMPLATE)
      : resolveTemplate(opts.template ?? defaultTemplate, env);
  return {
    name,
    kind,
    from,
    to,
    template,
    wrap: opts.wrap ?? '',
    when: opts.when !== undefined ? pattern('--when', opts.when) : null,
    includeInterrupted: opts.include_interrupted ?? false,
    hopLimit: opts.hop_limit ?? DEFAULT_HOP_LIMIT,
    state: 'active',
    reason: null,
    fired: 0,
    createdAt: Date.now(),
    loop: null,
    pending: new Map(),
    seen: [],
    remote: null,
    held: null,
  };
}

/** True the first time a leg meets a turn (remembered): a route never fires twice for one turn. */
export function firstSight(leg: Leg, turnId: string): boolean {
  if (leg.seen.includes(turnId)) return false;
  leg.seen.push(turnId);
  if (leg.seen.length > FIRED_MEMORY) leg.seen.shift();
  return true;
}

/** What `list_routes` and the add requests say of a leg. */
export function routeInfo(leg: Leg, queued: number): RouteInfo {
  return {
    route: leg.name,
    kind: leg.kind,
    from: leg.from,
    to: leg.to,
    template: leg.template.name,
    when: leg.when?.source ?? null,
    include_interrupted: leg.includeInterrupted,
    hop_limit: leg.hopLimit,
    state: leg.state,
    reason: leg.reason,
    fired: leg.fired,
    queued,
    created_at: leg.createdAt,
    ...(leg.held ? { failed: true } : {}),
    loop: leg.loop
      ? {
          name: leg.loop.name,
          until: leg.loop.until.source,
          rounds: leg.loop.rounds,
          round: leg.loop.round,
        }
      : null,
  };
}

/** Ends a leg for good (its source exited, its link broke), dropping what waited, saying why. */
export function endLeg(leg: Leg, reason: string, parts: RouteParts): void {
  if (leg.state === 'ended') return;
  leg.state = 'ended';
  leg.reason = reason;
  leg.remote?.dispose();
  parts.queue.dropFor(leg, reason);
  parts.log.add({ route: leg.name, event: 'ended', turn_ids: [], to: leg.to.name, reason });
}
