import type { Session, SessionClient } from '../sessions/session.js';

/** A connection that shows notifications: a web page or an editor, and what it shows now. */
export interface NotifyClient {
  kind: 'page' | 'editor';
  /** The session it shows (null: none, e.g. the page's grid). */
  viewing: Session | null;
  /** Page: its tab is visible; editor: its window has focus. */
  visible: boolean;
  /** Page: the browser lets it show notifications. */
  canNotify: boolean;
  /** When it last reported (ms): the newest report wins a tie. */
  at: number;
}

/** The `notify_client` connections, by connection; a closed connection is forgotten. */
export class NotifyClients {
  private readonly clients = new Map<SessionClient, NotifyClient>();

  set(connection: SessionClient, client: NotifyClient): void {
    this.clients.set(connection, client);
  }

  delete(connection: SessionClient): void {
    this.clients.delete(connection);
  }

  all(): NotifyClient[] {
    return [...this.clients.values()];
  }

  /** A visible page or a focused editor shows this session: the user looks at it. */
  shows(session: Session): boolean {
    for (const c of this.clients.values()) if (c.visible && c.viewing === session) return true;
    return false;
  }

  /**
   * The one connection of a kind that gets an event's notification: a visible (focused) one
   * first, then the one that reported last. Null: none is there.
   */
  pick(
    kind: NotifyClient['kind'],
    accept: (c: NotifyClient) => boolean = () => true,
  ): SessionClient | null {
    let best: [SessionClient, NotifyClient] | null = null;
    for (const entry of this.clients) {
      const c = entry[1];
      if (c.kind !== kind || !accept(c)) continue;
      if (!best || rank(c) > rank(best[1])) best = entry;
    }
    return best?.[0] ?? null;
  }
}

function rank(c: NotifyClient): number {
  // Visibility outranks recency: a focused window is where a person will see it.
  return (c.visible ? 2 ** 52 : 0) + c.at;
}
