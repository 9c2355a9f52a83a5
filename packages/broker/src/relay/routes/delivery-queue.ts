import type { EventName, Push, SessionState } from '@clippy/protocol';
import { HandlerError } from '../../errors.js';
import type { Session, SessionClient } from '../../sessions/session.js';
import { injectInto } from '../inject-into-session.js';
import type { HopCounts } from './hop-count.js';
import type { Leg } from './records.js';
import type { RouteLog } from './route-log.js';

// What routes send waits here, per target, until the target is idle ("never into a busy
// target", docs/routes.md): then each message goes in through the same path as `relay` (idle
// wait, bracketed paste, a separate Enter, confirmation), one at a time.

/** Messages waiting per target while it is busy; past it the oldest is dropped (and logged). */
export const ROUTE_QUEUE_LIMIT = 16;

export interface QueueItem {
  leg: Leg;
  /** A promise while the sources' diffs it shows are read (templates with `{{diff}}`). */
  message: string | Promise<string>;
  turnIds: string[];
  /** Hops of the chain this injection continues: its target's next turn carries them. */
  hops: number;
}

export interface RouteSessions {
  resolve(ref: string): Session | undefined;
  wrapperOf(session: Session): SessionClient | undefined;
}

export interface DeliveryDeps {
  sessions: RouteSessions;
  log: RouteLog;
  hops: HopCounts;
  /** Sends a route push to subscribers of `event` (about any of `sessions`). */
  publish(event: EventName, push: Push, sessions: string[]): void;
}

export class DeliveryQueue {
  private readonly queues = new Map<string, QueueItem[]>();
  private readonly delivering = new Set<string>();

  constructor(private readonly deps: DeliveryDeps) {}

  /** Nothing waits for any target. */
  get empty(): boolean {
    return this.queues.size === 0;
  }

  /** Messages of `leg` waiting for its target. */
  waiting(leg: Leg): number {
    return (this.queues.get(leg.to.session) ?? []).filter((i) => i.leg === leg).length;
  }

  enqueue(target: string, item: QueueItem): void {
    const { log } = this.deps;
    const queue = this.queues.get(target) ?? [];
    this.queues.set(target, queue);
    queue.push(item);
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
        const item = queue.shift()!;
        if (await this.inject(session, item)) continue;
        queue.unshift(item); // went busy meanwhile: the next idle sends it
        return;
      }
    } finally {
      this.delivering.delete(target);
    }
  }

  /** One message into its idle target; false when the target went busy first. */
  private async inject(session: Session, item: QueueItem): Promise<boolean> {
    const { log, hops } = this.deps;
    const message = item.message as string;
    const bytes = Buffer.from(message, 'utf8');
    hops.injecting(session.id, item.hops);
    try {
      // The queue waited for idle: injection checks again, as relay does (never into a busy target).
      await injectInto(
        this.deps.sessions,
        session,
        { content: bytes, text: message },
        { enter: true },
      );
    } catch (err) {
      hops.notInjected(session.id);
      if (err instanceof HandlerError && err.code === 'target_busy') return false;
      log.add({
        route: item.leg.name,
        event: 'failed',
        turn_ids: item.turnIds,
        to: item.leg.to.name,
        reason: (err as Error).message,
      });
      return true;
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
    return true;
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
