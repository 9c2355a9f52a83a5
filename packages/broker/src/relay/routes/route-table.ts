import { HandlerError } from '../../errors.js';
import type { Leg, LoopState } from './records.js';

// The routes and loops a daemon runs, by name: `r1, r2, …` and `loop1, …` unless named; a
// loop's legs are `NAME.a` and `NAME.b`, and its name stands for both.

export class RouteTable {
  private readonly legs = new Map<string, Leg>();
  private readonly loops = new Map<string, LoopState>();
  /** Per name prefix (`r`, `loop`): the last number given. */
  private readonly counters = new Map<string, number>();

  get size(): number {
    return this.legs.size;
  }

  /** Every leg (routes, fan-ins and the legs of loops), oldest first. */
  all(): IterableIterator<Leg> {
    return this.legs.values();
  }

  allLoops(): IterableIterator<LoopState> {
    return this.loops.values();
  }

  leg(name: string): Leg | undefined {
    return this.legs.get(name);
  }

  /** The loop of that name, or of the leg of that name. */
  loopOf(name: string): LoopState | undefined {
    return this.loops.get(name) ?? this.legs.get(name)?.loop ?? undefined;
  }

  add(leg: Leg): void {
    this.legs.set(leg.name, leg);
  }

  /** Refuses a loop name whose legs' names (`NAME.a`, `NAME.b`) a route has already. */
  checkLoopName(name: string): void {
    for (const leg of [`${name}.a`, `${name}.b`]) {
      if (this.legs.has(leg))
        throw new HandlerError('duplicate_route', `a route is named '${leg}'`);
    }
  }

  addLoop(loop: LoopState): void {
    this.loops.set(loop.name, loop);
    for (const leg of loop.legs) this.legs.set(leg.name, leg);
  }

  /** `given` when it is free, else the next `PREFIXn` no route or loop has. */
  newName(given: string | undefined, prefix: string): string {
    if (given !== undefined) {
      if (this.legs.has(given) || this.loops.has(given)) {
        throw new HandlerError('duplicate_route', `a route or loop is already named '${given}'`);
      }
      return given;
    }
    let name;
    let n = this.counters.get(prefix) ?? 0;
    do name = `${prefix}${++n}`;
    while (this.legs.has(name) || this.loops.has(name));
    this.counters.set(prefix, n);
    return name;
  }

  /** A route by name, or both legs of a loop (named by the loop or by either leg). */
  named(name: string): Leg[] {
    const loop = this.loops.get(name);
    if (loop) return loop.legs;
    const leg = this.legs.get(name);
    if (!leg) throw new HandlerError('route_not_found', `no route or loop is named '${name}'`);
    return leg.loop ? leg.loop.legs : [leg];
  }

  /** Forgets the legs that `named(name)` gave, and their loop. */
  remove(name: string, legs: Leg[]): void {
    for (const leg of legs) this.legs.delete(leg.name);
    if (this.loops.has(name) || legs[0]?.loop) this.loops.delete(legs[0]!.loop?.name ?? name);
  }
}
