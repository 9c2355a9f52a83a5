import type { LineRegex } from '@clippy/turns';
import type { End, Leg, LoopState, RouteTurn } from './records.js';
import { DEFAULT_HOP_LIMIT, makeLeg } from './route.js';
import type { RouteParts } from './route-parts.js';

// A loop (`clippy loop A B --until RE`): two legs, A → B (`NAME.a`) and B → A (`NAME.b`),
// sharing one end condition, checked on every turn of either agent, and a count of rounds.

/** Default rounds of a loop. */
export const DEFAULT_LOOP_ROUNDS = 5;

export interface LoopOptions {
  until: string;
  rounds?: number | undefined;
  name?: string | undefined;
  template_a?: string | undefined;
  template_b?: string | undefined;
  prompt?: string | undefined;
  include_interrupted?: boolean | undefined;
  hop_limit?: number | undefined;
}

/** A loop named `name` between `a` and `b`, with its two legs (not yet listed anywhere). */
export function makeLoop(
  name: string,
  a: End,
  b: End,
  until: LineRegex,
  opts: LoopOptions,
  env: Record<string, string | undefined>,
): LoopState {
  const loop: LoopState = {
    name,
    until,
    rounds: opts.rounds ?? DEFAULT_LOOP_ROUNDS,
    round: 0,
    a: a.session,
    b: b.session,
    legs: [],
    ended: false,
    endedBy: null,
  };
  // A loop's hops are bounded by its rounds: two per round, and the prompt.
  const hopLimit = Math.max(opts.hop_limit ?? DEFAULT_HOP_LIMIT, 2 * loop.rounds + 1);
  const common = { include_interrupted: opts.include_interrupted, hop_limit: hopLimit };
  const legA = makeLeg(
    `${name}.a`,
    'loop',
    [a],
    b,
    { ...common, template: opts.template_a },
    'plain',
    env,
  );
  const legB = makeLeg(
    `${name}.b`,
    'loop',
    [b],
    a,
    { ...common, template: opts.template_b },
    'plain',
    env,
  );
  legA.loop = loop;
  legB.loop = loop;
  loop.legs = [legA, legB];
  return loop;
}

/**
 * Checks a turn of `session` against the end condition of each running loop it is in, first
 * (before any leg forwards it): a match ends the loop, and its turn goes nowhere.
 */
export function checkUntil(
  loops: Iterable<LoopState>,
  session: End,
  turn: RouteTurn,
  ends: RouteParts,
): void {
  for (const loop of loops) {
    if (loop.ended || (loop.a !== session.session && loop.b !== session.session)) continue;
    if (loop.legs.some((l) => l.state === 'paused')) continue;
    if (loop.until.test(turn.text)) {
      loop.endedBy = turn.turn_id;
      endLoop(
        loop,
        `turn ${turn.turn_id} of '${session.name}' matched --until`,
        [turn.turn_id],
        ends,
      );
    }
  }
}

/**
 * Counts a round as A's leg fires (the B → A leg, and the prompt, do not); false when the
 * loop ran all its rounds, which ends it.
 */
export function nextRound(loop: LoopState, leg: Leg, ids: string[], ends: RouteParts): boolean {
  if (leg !== loop.legs[0]) return true;
  if (loop.round >= loop.rounds) {
    endLoop(loop, `${loop.rounds} rounds ran`, ids, ends);
    return false;
  }
  loop.round++;
  return true;
}

export function endLoop(loop: LoopState, reason: string, ids: string[], ends: RouteParts): void {
  loop.ended = true;
  for (const leg of loop.legs) {
    leg.state = 'ended';
    leg.reason = reason;
    ends.queue.dropFor(leg, `loop ended: ${reason}`);
  }
  ends.log.add({ route: loop.name, event: 'ended', turn_ids: ids, to: null, reason });
}
