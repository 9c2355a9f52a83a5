import type { Push } from '@clippy/protocol';
import type { Session } from '../sessions/session.js';

/**
 * Least time between two looks at a growing turn's text: streaming text reads smoothly at a few
 * updates a second, and each look extracts the whole text so far (off the output path: after
 * output was forwarded, in the detector's thread for line presets).
 */
export const TURN_PROGRESS_INTERVAL_MS = 150;

/** What the feeds need of the broker. */
export interface TurnProgressHost {
  /** Whether some connection subscribed to `turn_progress` for this session. */
  wants(session: Session): boolean;
  publish(session: Session, push: Push<'turn_progress'>): void;
}

/**
 * `turn_progress` pushes: while a session is busy, its open turn's text is looked at after
 * output, at most every TURN_PROGRESS_INTERVAL_MS, and pushed when it changed. A session is fed
 * only while a connection asked for these pushes about it: started when one subscribes, a feed
 * ends itself at its first look that nobody wants.
 */
export class TurnProgressFeeds {
  private readonly feeds = new Map<Session, SessionFeed>();

  constructor(private readonly host: TurnProgressHost) {}

  /** Subscriptions changed, or sessions were created: feed the live sessions someone wants. */
  refresh(sessions: Iterable<Session>): void {
    for (const session of sessions) {
      if (!session.live || !session.turns || this.feeds.has(session)) continue;
      if (!this.host.wants(session)) continue;
      this.feeds.set(
        session,
        new SessionFeed(session, this.host, () => this.feeds.delete(session)),
      );
    }
  }

  dispose(): void {
    for (const feed of [...this.feeds.values()]) feed.dispose();
    this.feeds.clear();
  }
}

class SessionFeed {
  private timer: NodeJS.Timeout | null = null;
  private lookedAt = -Infinity;
  private looking = false;
  /** Output came since the last look began. */
  private dirty = false;
  /** The text pushed last for the open turn (null: none yet). */
  private sent: string | null = null;
  private readonly off: () => void;
  private disposed = false;

  constructor(
    private readonly session: Session,
    private readonly host: TurnProgressHost,
    private readonly onEnd: () => void,
  ) {
    this.off = session.onActivity(() => this.activity());
    this.activity();
  }

  /** Output or a state change: look soon while a turn is open. */
  private activity(): void {
    if (!this.session.live) return this.dispose();
    if (this.session.state !== 'busy') {
      // A new turn starts from nothing.
      if (this.session.state === 'idle') this.sent = null;
      return;
    }
    this.dirty = true;
    if (this.timer || this.looking) return;
    const wait = Math.max(0, this.lookedAt + TURN_PROGRESS_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => void this.look(), wait);
    this.timer.unref();
  }

  private async look(): Promise<void> {
    this.timer = null;
    if (this.disposed) return;
    if (!this.host.wants(this.session)) return this.dispose();
    this.looking = true;
    this.dirty = false;
    this.lookedAt = Date.now();
    let text: string | null;
    try {
      text = (await this.session.turns?.partialText()) ?? null;
    } finally {
      this.looking = false;
    }
    if (this.disposed) return;
    if (text !== null && text !== this.sent && this.session.state === 'busy') {
      this.sent = text;
      this.host.publish(this.session, {
        type: 'turn_progress',
        id: 0,
        session: this.session.id,
        name: this.session.name,
        text,
      });
    }
    // Output that came during the look is looked at in its turn.
    if (this.dirty) this.activity();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.off();
    this.onEnd();
  }
}
