import type { ClippyClient } from '@clippy/client';
import type { EventName, Push } from '@clippy/protocol';

/** The events an ACP session follows of its clippy session. */
const EVENTS: EventName[] = [
  'state_changed',
  'turn_completed',
  'turn_progress',
  'session_exited',
  'session_removed',
];

type SessionPush = Push<
  'state_changed' | 'turn_completed' | 'turn_progress' | 'session_exited' | 'session_removed'
>;

/**
 * The one connection of `clippy acp` to the daemon, and the events of the sessions its ACP
 * sessions run in, handed to whoever listens for each session (by session ID). The subscription
 * names those sessions only: the daemon looks at growing turns (`turn_progress`) of no other.
 */
export class DaemonLink {
  private readonly watched = new Set<string>();
  private readonly listeners = new Map<string, Set<(push: SessionPush) => void>>();
  private readonly off: () => void;

  constructor(readonly daemon: ClippyClient) {
    this.off = daemon.onAny((push) => {
      const session = (push as { session?: unknown }).session;
      if (typeof session !== 'string' || !EVENTS.includes(push.type as EventName)) return;
      for (const listener of [...(this.listeners.get(session) ?? [])])
        listener(push as SessionPush);
    });
  }

  /** Follows a session's events from now on (resolves once the daemon will send them). */
  async watch(session: string): Promise<void> {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    await this.daemon.request('subscribe', { events: EVENTS, sessions: [...this.watched] });
  }

  /** Stops following a session (its ACP session was closed). */
  async unwatch(session: string): Promise<void> {
    if (!this.watched.delete(session)) return;
    if (this.watched.size === 0) await this.daemon.request('unsubscribe', {});
    else await this.daemon.request('subscribe', { events: EVENTS, sessions: [...this.watched] });
  }

  /** Calls `listener` with every followed event of `session`; returns the stop. */
  listen(session: string, listener: (push: SessionPush) => void): () => void {
    let set = this.listeners.get(session);
    if (!set) this.listeners.set(session, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  dispose(): void {
    this.off();
    this.listeners.clear();
  }
}

export type { SessionPush };
