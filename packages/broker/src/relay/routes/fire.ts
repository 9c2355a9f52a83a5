import { nextRound } from './loop.js';
import type { Leg, RouteTurn } from './records.js';
import { firstSight } from './route.js';
import type { RouteParts } from './route-parts.js';
import { renderWithDiffs, type TemplateView } from './templates.js';

// A leg meets a turn of one of its sources: it forwards it (rendered with its template, into
// its target's queue), waits for the other sources of a fan-in, or says why not in the log.

/** The source a turn came from: a session here, or `host:session` for one on another machine. */
export interface TurnSource {
  id: string;
  name: string;
}

/**
 * Forwards `turn` through `leg` when the leg is active, its filters let it through and the chain
 * it would continue (`hops` injections long) stays within the leg's hop limit.
 */
export function fire(
  leg: Leg,
  source: TurnSource,
  turn: RouteTurn,
  hops: number,
  parts: RouteParts,
): void {
  const ids = [turn.turn_id];
  const skip = (reason: string, warn = false) =>
    parts.log.add(
      { route: leg.name, event: 'skipped', turn_ids: ids, to: leg.to.name, reason },
      { warn },
    );
  if (!firstSight(leg, turn.turn_id)) return;
  if (leg.state !== 'active')
    return skip(`route ${leg.state}${leg.reason ? `: ${leg.reason}` : ''}`);
  if (turn.interrupted && !leg.includeInterrupted) return skip('the turn was interrupted');
  if (leg.when && !leg.when.test(turn.text))
    return skip(`the turn does not match --when /${leg.when.source}/`);
  if (hops + 1 > leg.hopLimit) return skip(hopLimitReason(leg, hops), true);
  if (leg.loop && !nextRound(leg.loop, leg, ids, parts)) return;
  let view: Omit<TemplateView, 'diff' | 'diff_stat'>;
  let sources = [source.id];
  if (leg.kind === 'fan_in') {
    leg.pending.set(source.id, turn);
    const waiting = leg.from.filter((f) => !leg.pending.has(f.session)).map((f) => f.name);
    if (waiting.length > 0) {
      parts.log.add({
        route: leg.name,
        event: 'queued',
        turn_ids: ids,
        to: leg.to.name,
        reason: `waiting for ${waiting.join(', ')}`,
      });
      return;
    }
    const turns = leg.from.map((f) => ({ end: f, turn: leg.pending.get(f.session)! }));
    sources = leg.from.map((f) => f.session);
    leg.pending.clear();
    ids.splice(0, 1, ...turns.map((t) => t.turn.turn_id));
    view = {
      text: turns.map((t) => t.turn.text).join('\n\n'),
      prompt: turns.map((t) => t.turn.prompt).join('\n'),
      source: turns.map((t) => t.end.name).join(', '),
      turn_id: ids.join(', '),
      round: 0,
      turns: turns.map((t) => ({
        source: t.end.name,
        text: t.turn.text,
        prompt: t.turn.prompt,
        turn_id: t.turn.turn_id,
      })),
      wrap: leg.wrap,
    };
  } else {
    view = {
      text: turn.text,
      prompt: turn.prompt,
      source: source.name,
      turn_id: turn.turn_id,
      round: leg.loop?.round ?? 0,
      turns: [{ source: source.name, text: turn.text, prompt: turn.prompt, turn_id: turn.turn_id }],
      wrap: leg.wrap,
    };
  }
  parts.queue.enqueue(leg.to.session, {
    leg,
    // A template showing a diff renders once the sources' diffs (asked for now) are read.
    message: renderWithDiffs(leg.template, view, sources, parts.diffOf),
    turnIds: ids,
    hops: hops + 1,
  });
}

/**
 * Why a turn stops at the hop limit. A turn of another machine carries the hops counted there:
 * past 0, the last injection of its chain was a route of that machine's daemon, so routes on
 * both sides feed each other (a cycle no single daemon can see when its routes are added).
 */
function hopLimitReason(leg: Leg, hops: number): string {
  const why = `hop limit ${leg.hopLimit} reached: this turn came from a chain of ${hops} automatic injections`;
  if (!leg.remote || hops === 0) return why;
  return `${why}, counted across daemons (the last by a route on ${leg.remote.host}: routes there and here may feed each other)`;
}
