// Hop counts: how many automatic injections stand behind a turn. A route's injection makes its
// target's next turn one hop longer than the turn it forwarded; a route does not forward a turn
// past its hop limit (docs/routes.md, "No runaway chains").

export class HopCounts {
  /** Per session: the hops behind its next turn, once a route injected into it. */
  private readonly next = new Map<string, number>();

  /** A route's injection went into `target`: its next turn continues a chain of `hops`. */
  injected(target: string, hops: number): void {
    this.next.set(target, hops);
  }

  /** The hops behind this turn of `session` (0 when no route set it off). */
  take(session: string): number {
    const hops = this.next.get(session) ?? 0;
    this.next.delete(session);
    return hops;
  }
}
