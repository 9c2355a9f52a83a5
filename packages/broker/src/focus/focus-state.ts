import type { Session, SessionClient } from '../sessions/session.js';

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
 */
export class FocusState {
  private current: FocusEntry | null = null;
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
    this.current = { session, client, since: at };
  }

  /** The client's terminal lost focus: clears the answer if that terminal held it. */
  focusOut(session: Session, client: SessionClient): void {
    if (this.current && this.current.client === client && this.current.session === session) {
      this.current = null;
    }
  }

  /** The focused attached session, or null (none reported focus, or it lost it since). */
  focused(): FocusEntry | null {
    const c = this.current;
    if (!c) return null;
    if (!c.session.live || !c.session.isAttached(c.client)) {
      this.current = null;
      return null;
    }
    return c;
  }
}
