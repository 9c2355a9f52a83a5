import type { TurnMeta } from '@clippy/protocol';
import type { Session } from '../../sessions/session.js';

// Hop counts: how many automatic injections stand behind a turn. A route's injection makes the
// turns it sets off in its target one hop longer than the turn it forwarded. The count is
// stamped on each such turn as it is announced (`turn_completed`'s `turn.hops`, and the stored
// turn that `get_turn` and `list_turns` read), so a route of this daemon and a route of another
// daemon that follows the session through its socket (remote-source.ts) count the same chain,
// and the hop limit bounds a cycle through any number of daemons (docs/routes.md).

/** The chain a route's injection continues in its target. */
interface Mark {
  hops: number;
  /** The target's `inputBytes` once the injection was written; null while it is under way. */
  inputAfter: number | null;
}

export class HopCounts {
  private readonly marks = new Map<string, Mark>();

  /**
   * A route is about to inject into `target`: its turns from now on continue a chain of
   * `hops` (marked before the injection: a quick target may complete a turn before it returns).
   */
  injecting(target: string, hops: number): void {
    this.marks.set(target, { hops, inputAfter: null });
  }

  /** The injection went in: what the target receives from others after it is theirs. */
  injected(target: Session): void {
    const mark = this.marks.get(target.id);
    if (mark) mark.inputAfter = target.inputBytes;
  }

  /** The injection did not go in: the target's next turns are not the route's. */
  notInjected(target: string): void {
    this.marks.delete(target);
  }

  /**
   * Called as a turn is announced: stamps its hops on the announcement and on the stored turn.
   * Every turn the injection set off carries them (a message of several
   * lines into a line program is several turns), until the target gets input from anyone else:
   * from then on its turns start chains of their own (0).
   */
  stamp(session: Session, meta: TurnMeta): void {
    const mark = this.marks.get(session.id);
    let hops = 0;
    if (mark && (mark.inputAfter === null || mark.inputAfter === session.inputBytes)) {
      hops = mark.hops;
    } else {
      this.marks.delete(session.id);
    }
    meta.hops = hops;
    const stored = session.turns?.ring.get(meta.seq);
    if (stored) stored.hops = hops;
  }

  /** The session ended: no turn of it will come. */
  forget(session: string): void {
    this.marks.delete(session);
  }
}
