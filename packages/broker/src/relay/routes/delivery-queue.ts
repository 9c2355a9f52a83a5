import type { EventName, Push, SessionState } from '@clippy/protocol';
import { HandlerError } from '../../errors.js';
import type { Session, SessionClient } from '../../sessions/session.js';
import type { injectInto } from '../inject-into-session.js';
import type { HopCounts } from './hop-count.js';
import type { Leg } from './records.js';
import type { RouteLog } from './route-log.js';

// What routes send waits here, per target, until the target is idle ("never into a busy
// target", docs/routes.md): then each message goes in through the same path as `relay` (idle
// wait, bracketed paste, a separate Enter, confirmation), one at a time.

/** Messages waiting per target while it is busy; past it the oldest is dropped (and logged). */
export const ROUTE_QUEUE_LIMIT = 16;
/**
 * Tries of a message whose Enter the target did not take (`not_submitted`) before its route
 * stops: the second try, at the target's next idle, presses Enter on the text still in its box.
 */
export const ROUTE_HOP_TRIES = 2;
/**
 * How long after a try failed the next one waits, whatever the target's state does meanwhile
 * (an agent that left the text in its box stays idle, and goes idle at once when its detector
 * gives up on the Enter): time for what kept it from taking the Enter (a redraw, a loaded
 * machine) to pass. A target busy then gets it when it is next idle.
 */
export const ROUTE_RETRY_MS = 2_000;

export interface QueueItem {
  leg: Leg;
  /** A promise while the sources' diffs it shows are read (templates with `{{diff}}`). */
  message: string | Promise<string>;
  turnIds: string[];
  /** Hops of the chain this injection continues: its target's next turn carries them. */
  hops: number;
  /** Tries that failed so far, and when the next may be made. */
  failures?: number;
  retryAt?: number | undefined;
  /** A try typed it and the target did not take the Enter: the next presses Enter on it. */
  typed?: boolean;
  /** The target's turn count when a try failed: a later turn of this text means it was taken. */
  turnsAtFailure?: number;
}

export interface RouteSessions {
  resolve(ref: string): Session | undefined;
  wrapperOf(session: Session): SessionClient | undefined;
}

export interface DeliveryDeps {
  sessions: RouteSessions;
  log: RouteLog;
  hops: HopCounts;
  /** How a message goes into its target: `injectInto`, the path `relay` takes. */
  inject: typeof injectInto;
  /** Sends a route push to subscribers of `event` (about any of `sessions`). */
  publish(event: EventName, push: Push, sessions: string[]): void;
  /**
   * A message could not be delivered and will not be tried again (ROUTE_HOP_TRIES failed, or
   * an error a try cannot mend): its route stops, saying why. `item` is no longer queued.
   */
  failed(item: QueueItem, session: Session, reason: string): void;
}

/** What one try of a message came to. */
type Outcome = 'fired' | 'busy' | 'retry' | 'failed';

export class DeliveryQueue {
  private readonly queues = new Map<string, QueueItem[]>();
  private readonly delivering = new Set<string>();
  /** Per target, the timer of a failed message's next try. */
  private readonly retries = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deps: DeliveryDeps) {}

  /** Nothing waits for any target. */
  get empty(): boolean {
    return this.queues.size === 0;
  }

  /** Messages of `leg` waiting for its target. */
  waiting(leg: Leg): number {
    return (this.queues.get(leg.to.session) ?? []).filter((i) => i.leg === leg).length;
  }

  /** Queues a message for `target` (`first`: ahead of what waits, as one sent before). */
  enqueue(target: string, item: QueueItem, first = false): void {
    const { log } = this.deps;
    const queue = this.queues.get(target) ?? [];
    this.queues.set(target, queue);
    if (first) queue.unshift(item);
    else queue.push(item);
    if (queue.length > ROUTE_QUEUE_LIMIT) {
      const old = queue.shift()!;
      log.add({
        route: old.leg.name,
        event: 'dropped',
        turn_ids: old.turnIds,
        to: old.leg.to.name,
        reason: `${ROUTE_QUEUE_LIMIT} messages already waited for '${old.leg.to.name}' (oldest dropped)`,
      });
    }
    const session = this.deps.sessions.resolve(target);
    if (session && session.state !== 'idle') {
      log.add({
        route: item.leg.name,
        event: 'queued',
        turn_ids: item.turnIds,
        to: item.leg.to.name,
        reason: `target is ${session.state}: sent when it is idle`,
      });
    }
    void this.deliver(target);
  }

  /** Injects the target's queued messages one at a time, each once the target is idle. */
  async deliver(target: string): Promise<void> {
    if (this.delivering.has(target)) return;
    this.delivering.add(target);
    try {
      for (;;) {
        const queue = this.queues.get(target);
        const session = this.deps.sessions.resolve(target);
        if (!queue || queue.length === 0 || !session) return;
        if (!session.live) {
          for (const item of queue.splice(0)) this.drop(item, `target '${session.name}' exited`);
          return;
        }
        const head = queue[0]!;
        if (typeof head.message !== 'string') {
          // Its sources' diffs are being read: then everything is looked at again.
          head.message = await head.message;
          continue;
        }
        if ((session.state as SessionState) !== 'idle') return; // state_changed → idle resumes
        if (head.retryAt !== undefined && Date.now() < head.retryAt) {
          // Its timer resumes, armed again: one that fired a little early (timers count from the
          // event loop's time, which lags the clock on a busy loop) found it not due yet.
          this.retryLater(target, head);
          return;
        }
        const item = queue.shift()!;
        if (this.takenLate(session, item)) continue;
        const outcome = await this.inject(session, item);
        if (outcome === 'fired' || outcome === 'failed') continue;
        // Went busy meanwhile, or to be tried again: the next idle sends it (first in line).
        queue.unshift(item);
        if (outcome === 'retry') this.retryLater(target, item);
        return;
      }
    } finally {
      this.delivering.delete(target);
    }
  }

  /**
   * Whether the target took a message it was said not to (its Enter seen late, on a loaded
   * machine): a turn since the failed try whose input is this text. Then it is not sent again
   * (never twice into one agent), and counts as fired.
   */
  private takenLate(session: Session, item: QueueItem): boolean {
    const ring = session.turns?.ring;
    if (item.turnsAtFailure === undefined || !ring) return false;
    const text = (item.message as string).replace(/\s+/gu, '');
    for (let seq = item.turnsAtFailure + 1; seq <= ring.count; seq++) {
      const prompt = ring.get(seq)?.prompt.replace(/\s+/gu, '') ?? '';
      if (prompt === '' || !text.startsWith(prompt)) continue;
      item.leg.fired++;
      this.deps.log.add({
        route: item.leg.name,
        event: 'fired',
        turn_ids: item.turnIds,
        to: item.leg.to.name,
        reason: `'${session.name}' took it after all (turn ${ring.get(seq)!.turn_id}): not sent again`,
      });
      return true;
    }
    return false;
  }

  /** The next try of `item` (first in its target's queue) once ROUTE_RETRY_MS passed. */
  private retryLater(target: string, item: QueueItem): void {
    clearTimeout(this.retries.get(target));
    const timer = setTimeout(() => {
      this.retries.delete(target);
      void this.deliver(target);
    }, item.retryAt! - Date.now());
    timer.unref();
    this.retries.set(target, timer);
  }

  /** One try of a message into its idle target (see Outcome). */
  private async inject(session: Session, item: QueueItem): Promise<Outcome> {
    const { log, hops } = this.deps;
    const message = item.message as string;
    const bytes = Buffer.from(message, 'utf8');
    hops.injecting(session.id, item.hops);
    try {
      // The queue waited for idle: injection checks again, as relay does (never into a busy
      // target). A try after one the target did not take presses Enter on what its box holds.
      await this.deps.inject(
        this.deps.sessions,
        session,
        { content: bytes, text: message },
        { enter: true, ...(item.typed ? { resubmit: true } : {}) },
      );
    } catch (err) {
      hops.notInjected(session.id);
      if (err instanceof HandlerError && err.code === 'target_busy') return 'busy';
      const failures = (item.failures ?? 0) + 1;
      // Only an Enter not taken may go otherwise another time; other errors would come again.
      const untaken = err instanceof HandlerError && err.code === 'not_submitted';
      if (untaken) item.typed = true;
      const again = untaken && failures < ROUTE_HOP_TRIES;
      const reason = (err as Error).message;
      log.add({
        route: item.leg.name,
        event: 'failed',
        turn_ids: item.turnIds,
        to: item.leg.to.name,
        reason: again
          ? `${reason}; tried again when '${session.name}' is next idle`
          : `${reason}${failures > 1 ? ` (tried ${failures} times)` : ''}`,
      });
      item.failures = failures;
      item.turnsAtFailure = session.turns?.ring.count;
      if (again) {
        item.retryAt = Date.now() + ROUTE_RETRY_MS;
        return 'retry';
      }
      this.deps.failed(item, session, reason);
      return 'failed';
    }
    hops.injected(session);
    item.leg.fired++;
    log.add({
      route: item.leg.name,
      event: 'fired',
      turn_ids: item.turnIds,
      to: item.leg.to.name,
      reason: null,
    });
    this.deps.publish(
      'route_fired',
      {
        type: 'route_fired',
        id: 0,
        route: item.leg.name,
        turn_ids: item.turnIds,
        to: { session: session.id, name: session.name },
        size: bytes.length,
      },
      [...item.leg.from.map((f) => f.session), session.id],
    );
    return 'fired';
  }

  /** Drops what `leg` left waiting, logging each with `reason`. */
  dropFor(leg: Leg, reason: string): void {
    const queue = this.queues.get(leg.to.session);
    if (!queue) return;
    for (let i = queue.length - 1; i >= 0; i--) {
      if (queue[i]!.leg === leg) this.drop(queue.splice(i, 1)[0]!, reason);
    }
  }

  /** The target ended: its queue goes (the legs into it dropped theirs with a reason first). */
  forget(target: string): void {
    this.queues.delete(target);
    clearTimeout(this.retries.get(target));
    this.retries.delete(target);
  }

  /** Stops the timers of the next tries (the daemon stops). */
  dispose(): void {
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private drop(item: QueueItem, reason: string): void {
    this.deps.log.add({
      route: item.leg.name,
      event: 'dropped',
      turn_ids: item.turnIds,
      to: item.leg.to.name,
      reason,
    });
  }
}
