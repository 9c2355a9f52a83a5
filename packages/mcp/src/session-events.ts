import type { ClippyClient } from '@clippy/client';
import type { EventName, SessionInfo, SessionState } from '@clippy/protocol';
import { ToolError } from './errors.js';

/** The pushes that tell a session's state: its changes, and its end. */
const EVENTS: EventName[] = ['state_changed', 'session_exited', 'session_removed'];

/** A safety net: how often the state is looked at again while no push has come. */
const RECHECK_MS = 5_000;

/**
 * The states of the daemon's sessions as they change, for the tools that wait for a session to
 * be ready (an agent `new_session` just started). One subscription for this connection, made
 * when first needed; the daemon holds the states, this only listens.
 */
export class SessionEvents {
  private subscribed: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();
  private readonly off: () => void;

  constructor(private readonly daemon: ClippyClient) {
    this.off = daemon.onAny((push) => {
      if (!EVENTS.includes(push.type as EventName)) return;
      for (const listener of [...this.listeners]) listener();
    });
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= this.daemon.request('subscribe', { events: EVENTS }).then(() => undefined);
    return this.subscribed;
  }

  /**
   * Waits until the session has left `starting` (its program showed its first prompt, or asks a
   * question, or ended) and returns it as it is then; `until` is the deadline (epoch ms).
   */
  async untilStarted(
    session: string,
    name: string,
    until: number,
    signal: AbortSignal,
  ): Promise<SessionInfo> {
    await this.subscribe();
    for (;;) {
      // Listening before looking: a change between the look and the wait is not missed.
      const next = this.nextPush(Math.max(0, Math.min(until - Date.now(), RECHECK_MS)), signal);
      try {
        const { sessions } = await this.daemon.request('list_sessions', {});
        const info = sessions.find((s) => s.session === session);
        if (!info)
          throw new ToolError(
            `session '${name}' was removed while it started`,
            'session_not_found',
          );
        if (info.state !== ('starting' satisfies SessionState)) return info;
        if (Date.now() >= until)
          throw new ToolError(
            `session '${name}' has not shown its first prompt yet (it is still starting): nothing was sent; try again in a moment`,
            'timeout',
          );
        if (signal.aborted) throw new ToolError('the call was cancelled', 'cancelled');
        await next.changed;
      } finally {
        next.stop();
      }
    }
  }

  /** Resolves `changed` at the next state push, after `ms`, or when `signal` aborts. */
  private nextPush(ms: number, signal: AbortSignal): { changed: Promise<void>; stop: () => void } {
    let stop = () => {};
    const changed = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.listeners.add(done);
      signal.addEventListener('abort', done, { once: true });
      stop = done;
    });
    return { changed, stop };
  }

  dispose(): void {
    this.off();
    this.listeners.clear();
  }
}
