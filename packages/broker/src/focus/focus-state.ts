import type { Session, SessionClient } from '../sessions/session.js';

/**
 * A focus shorter than this went over a terminal on its way elsewhere (tmux or a window manager
 * switching past it): its focus-out gives the focus back to the terminal it took it from. A
 * terminal the user clicked keeps it far longer; a switch past one reports both within a read
 * or two of each other.
 */
const PASSING_FOCUS_MS = 100;

/** The attached terminal that reported focus last: which session the user is looking at. */
export interface FocusEntry {
  session: Session;
  client: SessionClient;
  /** When its terminal reported focus (ms since the epoch). */
  since: number;
}

/**
 * Which attached session the user looks at, from the focus reports of attach clients
 * (CSI ? 1004 h), and the process ID each attach client told (for the tmux and X11 resolvers,
 * which find a session from a window's process tree). A focus-out of that terminal, its detach,
 * its disconnect or the session's end all clear the answer: a stale focus is never reported,
 * because every read checks that the client is still attached to a live session.
 *
 * Reports of different terminals come from different PTYs, which the kernel hands to their
 * reader separately: on a loaded machine tmux switching from window one to window two (after a
 * switch the other way) could be read as two's focus-in, then one's focus-in and focus-out, and
 * the latest report alone named no session. A focus-out that ends a passing focus
 * (PASSING_FOCUS_MS) therefore gives the focus back to the terminal it replaced, if that one
 * reported no focus-out since.
 */
export class FocusState {
  private current: FocusEntry | null = null;
  /** The entry `current` replaced, while `current` is young enough to be a passing focus. */
  private previous: FocusEntry | null = null;
  /** Each terminal's last report: focus in (true) or out. Weak: it goes with its connection. */
  private readonly lastReport = new WeakMap<SessionClient, boolean>();
  /** Weak: a connection that goes away takes its PID with it. */
  private readonly pids = new WeakMap<SessionClient, number>();

  /** The attach client runs as process `pid`. */
  setPid(client: SessionClient, pid: number): void {
    this.pids.set(client, pid);
  }

  pidOf(client: SessionClient): number | null {
    return this.pids.get(client) ?? null;
  }

  /** The client's terminal gained focus (it shows `session`); the latest report wins. */
  focusIn(session: Session, client: SessionClient, at: number = Date.now()): void {
    this.lastReport.set(client, true);
    if (this.current?.client !== client) this.previous = this.current;
    this.current = { session, client, since: at };
  }

  /**
   * The client's terminal lost focus: clears the answer if that terminal held it, or gives it
   * back to the terminal before it when its focus was only passing.
   */
  focusOut(session: Session, client: SessionClient, at: number = Date.now()): void {
    this.lastReport.set(client, false);
    const c = this.current;
    if (!c || c.client !== client || c.session !== session) return;
    const before = this.previous;
    this.current = null;
    this.previous = null;
    if (before && at - c.since < PASSING_FOCUS_MS && this.lastReport.get(before.client) === true)
      this.current = before;
  }

  /** The focused attached session, or null (none reported focus, or it lost it since). */
  focused(): FocusEntry | null {
    const c = this.current;
    if (!c) return null;
    if (!c.session.live || !c.session.isAttached(c.client)) {
      this.current = null;
      this.previous = null;
      return null;
    }
    return c;
  }
}
