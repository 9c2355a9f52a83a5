import type { RouteInfo } from '@clippy/protocol';
import type { LineRegex } from '@clippy/turns';
import type { QueueItem } from './delivery-queue.js';
import type { Template } from './templates.js';

// The records the route engine keeps: a leg (a plain route, a fan-in, or one leg of a loop),
// its ends, the loop two legs share. In a file of their own that imports none of the code
// using them, so that route.ts, loop.ts, the delivery queue and the remote source can all
// read them without importing one another.

export type RouteKind = RouteInfo['kind'];

/** One end of a route: a session (a source on another machine: `host:session` for both). */
export interface End {
  session: string;
  name: string;
}

/** What a route needs of a turn (a stored one, or one read from another machine). */
export interface RouteTurn {
  turn_id: string;
  text: string;
  prompt: string;
  interrupted: boolean;
}

export interface Leg {
  name: string;
  kind: RouteKind;
  from: End[];
  to: End;
  template: Template;
  wrap: string;
  when: LineRegex | null;
  includeInterrupted: boolean;
  hopLimit: number;
  state: RouteInfo['state'];
  reason: string | null;
  fired: number;
  createdAt: number;
  loop: LoopState | null;
  /** Fan-in: each source's newest turn not yet combined. */
  pending: Map<string, RouteTurn>;
  seen: string[];
  /** A source on another machine (`host:session`), followed through its forwarded socket. */
  remote: LegRemote | null;
  /**
   * The message the leg stopped on (paused because its target did not take it): resuming the
   * route tries it again. null when the leg did not stop so.
   */
  held: QueueItem | null;
}

/** What a leg needs of its source on another machine (remote-source.ts's RemoteSource). */
export interface LegRemote {
  /** The machine, as the route names it. */
  readonly host: string;
  /** Stops following the source and closes the connection. */
  dispose(): void;
}

/** A loop (`clippy loop A B --until RE`): two legs sharing one end condition and a count of rounds. */
export interface LoopState {
  name: string;
  until: LineRegex;
  rounds: number;
  round: number;
  a: string;
  b: string;
  legs: Leg[];
  ended: boolean;
  /** The turn whose text matched `until`, once one did. */
  endedBy: string | null;
}
