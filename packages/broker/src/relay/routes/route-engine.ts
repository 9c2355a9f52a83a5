import type { EventName, Push, RouteInfo, RouteLogEntry, TurnMeta } from '@clippy/protocol';
import { HandlerError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Session } from '../../sessions/session.js';
import { findTurn } from '../../turn-ring/find-turn.js';
import type { StoredTurn } from '../../turn-ring/turn-ring.js';
import { injectInto } from '../inject-into-session.js';
import { cycleThrough } from './cycle-check.js';
import { DeliveryQueue, type QueueItem, type RouteSessions } from './delivery-queue.js';
import { fire } from './fire.js';
import { HopCounts } from './hop-count.js';
import { checkUntil, endLoop, makeLoop, type LoopOptions } from './loop.js';
import { followRemote, type RemoteEnd } from './remote-route.js';
import type { End, Leg, RouteTurn } from './records.js';
import { endLeg, makeLeg, oneTemplate, pattern, routeInfo, type RouteOptions } from './route.js';
import type { RouteParts } from './route-parts.js';
import { RouteLog } from './route-log.js';
import { RouteTable } from './route-table.js';
import { requireDiffSources } from './diff-sources.js';
import { render, resolveTemplate, type TemplateDiff } from './templates.js';

// Routes live in the daemon, beside injection (docs/architecture.md, "A relay"): fired by
// `turn_completed`, they inject through the same path as `relay` (idle wait, bracketed paste,
// a separate Enter, confirmation), so they keep running when every client has gone. They are
// kept in memory: a daemon restart ends them (docs/routes.md). This is the engine's front: the
// commands and the events; the parts are the legs (route.ts, fire.ts), loops (loop.ts), the
// delivery queue, hop counts, and sources on other machines (remote-route.ts).

export interface RouteEngineDeps {
  sessions: RouteSessions;
  log: Logger;
  env: Record<string, string | undefined>;
  /** Sends a route push to subscribers of `event` (about any of `sessions`). */
  publish(event: EventName, push: Push, sessions: string[]): void;
  /** A session's worktree diff for `{{diff}}` (null: it has no worktree). */
  diffOf?(session: string): Promise<TemplateDiff> | null;
  /** Tells the user (a notification) that a route stopped, about its target session. */
  notify?(session: Session, title: string, body: string): void;
}

export class RouteEngine {
  readonly log: RouteLog;
  private readonly table = new RouteTable();
  private readonly hops = new HopCounts();
  private readonly queue: DeliveryQueue;
  private readonly parts: RouteParts;

  constructor(private readonly deps: RouteEngineDeps) {
    this.log = new RouteLog(deps.log, (entry) => this.publishEntry(entry));
    this.queue = new DeliveryQueue({
      ...deps,
      log: this.log,
      hops: this.hops,
      inject: injectInto,
      failed: (item, target, reason) => this.stopOnFailure(item, target, reason),
    });
    this.parts = { log: this.log, queue: this.queue, diffOf: deps.diffOf };
  }

  // --- commands ---

  addRoute(fromRefs: string[], toRef: string, opts: RouteOptions): RouteInfo {
    const from = fromRefs.map((r) => this.end(r));
    const to = this.end(toRef);
    if (from.some((f) => f.session === to.session)) {
      throw new HandlerError(
        'invalid_argument',
        `a route from '${to.name}' into itself would feed on its own answers; use \`clippy loop\` between two sessions`,
      );
    }
    if (new Set(from.map((f) => f.session)).size !== from.length) {
      throw new HandlerError('invalid_argument', 'a fan-in names each source once');
    }
    oneTemplate(opts);
    const cycle = cycleThrough(this.table.all(), from, to);
    if (cycle) {
      throw new HandlerError(
        'invalid_argument',
        `this route would close a cycle (${cycle.join(' → ')}): routes may not feed each other for ever; a loop between two agents has an end condition (\`clippy loop A B --until RE\`)`,
      );
    }
    const fanIn = from.length > 1;
    const name = this.table.newName(opts.name, 'r');
    const kind = fanIn ? 'fan_in' : 'route';
    const leg = makeLeg(name, kind, from, to, opts, fanIn ? 'synthesize' : 'plain', this.deps.env);
    requireDiffSources(leg, this.deps.sessions.resolve);
    return this.added(leg);
  }

  addLoop(aRef: string, bRef: string, opts: LoopOptions): RouteInfo[] {
    const a = this.end(aRef);
    const b = this.end(bRef);
    if (a.session === b.session) {
      throw new HandlerError('invalid_argument', 'a loop runs between two different sessions');
    }
    const until = pattern('--until', opts.until);
    const name = this.table.newName(opts.name, 'loop');
    this.table.checkLoopName(name);
    const loop = makeLoop(name, a, b, until, opts, this.deps.env);
    for (const leg of loop.legs) requireDiffSources(leg, this.deps.sessions.resolve);
    this.table.addLoop(loop);
    this.log.add({
      route: name,
      event: 'added',
      turn_ids: [],
      to: null,
      reason: `until /${opts.until}/, ${loop.rounds} rounds`,
    });
    const [legA, legB] = loop.legs as [Leg, Leg];
    if (opts.prompt !== undefined && opts.prompt !== '') {
      this.queue.enqueue(a.session, { leg: legB, message: opts.prompt, turnIds: [], hops: 0 });
    }
    return [this.info(legA), this.info(legB)];
  }

  /**
   * A route whose source is a session on another machine, reached through `remote.socket` (an
   * SSH forwarding of that machine's broker socket, set up by the CLI). Its turns carry the hop
   * count of their chain there, which this daemon's routes continue.
   */
  async addRemoteRoute(
    fromRef: string,
    remote: RemoteEnd,
    toRef: string,
    opts: RouteOptions,
  ): Promise<RouteInfo> {
    const to = this.end(toRef);
    oneTemplate(opts);
    const label = `${remote.host}:${fromRef}`;
    const name = this.table.newName(opts.name, 'r');
    const from: End = { session: label, name: label };
    const leg = makeLeg(name, 'route', [from], to, opts, 'plain', this.deps.env);
    requireDiffSources(leg, this.deps.sessions.resolve);
    leg.remote = await followRemote(leg, fromRef, remote, {
      turn: (turn, hops) => {
        if (this.table.leg(name) === leg)
          fire(leg, { id: label, name: label }, turn, hops, this.parts);
      },
      end: (reason) => endLeg(leg, reason, this.parts),
      log: this.deps.log,
    });
    if (this.table.leg(name)) {
      leg.remote.dispose();
      throw new HandlerError('duplicate_route', `a route or loop is already named '${name}'`);
    }
    return this.added(leg);
  }

  /** Ends the links to other machines and the timers of next tries (the daemon stops). */
  dispose(): void {
    for (const leg of this.table.all()) leg.remote?.dispose();
    this.queue.dispose();
  }

  /** Turns of one session rendered with a route template (`replay --template`). */
  renderTurns(
    templateName: string,
    source: string,
    turns: RouteTurn[],
    diff: TemplateDiff = { diff: '', diff_stat: '' },
  ): string {
    const template = resolveTemplate(templateName, this.deps.env);
    return render(template, {
      ...diff,
      text: turns.map((t) => t.text).join('\n\n'),
      prompt: turns.map((t) => t.prompt).join('\n'),
      source,
      turn_id: turns.map((t) => t.turn_id).join(', '),
      round: 0,
      turns: turns.map((t) => ({ source, text: t.text, prompt: t.prompt, turn_id: t.turn_id })),
      wrap: '',
    });
  }

  list(): RouteInfo[] {
    return [...this.table.all()].map((l) => this.info(l));
  }

  remove(name: string): string[] {
    const legs = this.table.named(name);
    this.table.remove(name, legs);
    for (const leg of legs) {
      leg.remote?.dispose();
      this.queue.dropFor(leg, 'route removed');
    }
    this.log.add({ route: name, event: 'removed', turn_ids: [], to: null, reason: null });
    return legs.map((l) => l.name);
  }

  pause(name: string): RouteInfo[] {
    const legs = this.table.named(name);
    for (const leg of legs) {
      if (leg.state !== 'active') continue;
      leg.state = 'paused';
      leg.reason = 'paused by a user';
      this.queue.dropFor(leg, 'route paused');
    }
    this.log.add({ route: name, event: 'paused', turn_ids: [], to: null, reason: 'by a user' });
    return legs.map((l) => this.info(l));
  }

  resume(name: string): RouteInfo[] {
    const legs = this.table.named(name);
    for (const leg of legs) {
      if (leg.state === 'ended') {
        throw new HandlerError(
          'invalid_argument',
          `route '${leg.name}' has ended (${leg.reason}): add it again`,
        );
      }
      const target = this.deps.sessions.resolve(leg.to.session);
      if (!target?.live) {
        throw new HandlerError(
          'session_exited',
          `the target '${leg.to.name}' of '${leg.name}' has exited`,
        );
      }
    }
    for (const leg of legs) {
      leg.state = 'active';
      leg.reason = null;
    }
    this.log.add({ route: name, event: 'resumed', turn_ids: [], to: null, reason: null });
    // The message a route stopped on goes first: a loop goes on from where it stopped.
    for (const leg of legs) {
      const held = leg.held;
      if (!held) continue;
      leg.held = null;
      this.queue.enqueue(leg.to.session, { ...held, failures: 0, retryAt: undefined }, true);
    }
    return legs.map((l) => this.info(l));
  }

  entries(name: string | undefined, limit: number): RouteLogEntry[] {
    if (name === undefined) return this.log.list(null, limit);
    const names = new Set<string>([name]);
    const loop = this.table.loopOf(name);
    if (loop) for (const n of [loop.name, ...loop.legs.map((l) => l.name)]) names.add(n);
    else if (!this.table.leg(name) && this.log.list(names, 1).length === 0) {
      throw new HandlerError('route_not_found', `no route or loop is named '${name}'`);
    }
    return this.log.list(names, limit);
  }

  // --- events (from the broker's event stream) ---

  /**
   * A turn is about to be announced (`turn_completed`): it gets its hop count first, so every
   * subscriber (a route on another daemon among them) reads it with the turn.
   */
  countHops(session: Session, turn: TurnMeta): void {
    this.hops.stamp(session, turn);
  }

  onEvent(event: EventName, session: Session, push: Push): void {
    if (this.table.size === 0 && this.queue.empty) return;
    if (event === 'turn_completed' && push.type === 'turn_completed') {
      this.onTurn(session, push.turn);
    } else if (event === 'state_changed') {
      if (session.state === 'idle') void this.queue.deliver(session.id);
    } else if (event === 'session_exited' || event === 'session_removed') {
      this.onExit(session);
    }
  }

  private onTurn(session: Session, meta: TurnMeta): void {
    let turn: StoredTurn;
    try {
      turn = findTurn(this.deps.sessions, meta.turn_id);
    } catch {
      return; // evicted already: nothing to forward
    }
    const source = { session: session.id, name: session.name };
    // A loop's end condition is checked on every turn of either agent, first.
    checkUntil(this.table.allLoops(), source, turn, this.parts);
    for (const leg of this.table.all()) {
      if (!leg.from.some((f) => f.session === session.id)) continue;
      // The turn that ended its loop is in the loop's `ended` entry: not a skip besides.
      if (leg.loop?.endedBy === turn.turn_id) continue;
      fire(leg, session, turn, meta.hops ?? 0, this.parts);
    }
  }

  private onExit(session: Session): void {
    for (const leg of this.table.all()) {
      if (leg.state === 'ended') continue;
      if (leg.loop && (leg.loop.a === session.id || leg.loop.b === session.id)) {
        if (!leg.loop.ended) endLoop(leg.loop, `'${session.name}' exited`, [], this.parts);
      } else if (leg.from.some((f) => f.session === session.id)) {
        endLeg(leg, `source '${session.name}' exited`, this.parts);
      } else if (leg.to.session === session.id && leg.state === 'active') {
        leg.state = 'paused';
        leg.reason = `target '${session.name}' exited`;
        this.queue.dropFor(leg, leg.reason);
        this.log.add({
          route: leg.name,
          event: 'paused',
          turn_ids: [],
          to: leg.to.name,
          reason: leg.reason,
        });
      }
    }
    this.queue.forget(session.id);
    this.hops.forget(session.id);
  }

  /**
   * A message its target would not take, tried ROUTE_HOP_TRIES times (or failing in a way a
   * try cannot mend): its route stops — a loop, both legs — rather than wait for a turn that
   * will not come. `route ls` and `clippy ls` show it paused and why, the log says so, the user
   * is notified, and `route resume` sends the message again.
   */
  private stopOnFailure(item: QueueItem, target: Session, reason: string): void {
    const leg = item.leg;
    const name = leg.loop?.name ?? leg.name;
    const why = `'${target.name}' did not take a message: ${reason}; after a look at it, \`clippy route resume ${name}\` sends it again`;
    for (const l of leg.loop ? leg.loop.legs : [leg]) {
      if (l.state !== 'active') continue;
      l.state = 'paused';
      l.reason = why;
      this.queue.dropFor(l, `route paused: '${target.name}' did not take an earlier message`);
    }
    leg.held = item;
    this.log.add(
      { route: name, event: 'paused', turn_ids: item.turnIds, to: leg.to.name, reason: why },
      { warn: true },
    );
    this.deps.notify?.(
      target,
      `${name} stopped`,
      `'${target.name}' did not take its message: ${reason}`,
    );
  }

  // --- helpers ---

  /** A live session as a route's end. */
  private end(ref: string): End {
    const session = this.deps.sessions.resolve(ref);
    if (!session)
      throw new HandlerError('session_not_found', `no session has the ID or name '${ref}'`);
    if (!session.live) {
      throw new HandlerError(
        'session_exited',
        `session '${session.name}' has exited: a route needs it running`,
      );
    }
    return { session: session.id, name: session.name };
  }

  private added(leg: Leg): RouteInfo {
    this.table.add(leg);
    this.log.add({ route: leg.name, event: 'added', turn_ids: [], to: leg.to.name, reason: null });
    return this.info(leg);
  }

  private info(leg: Leg): RouteInfo {
    return routeInfo(leg, this.queue.waiting(leg));
  }

  private publishEntry(entry: RouteLogEntry): void {
    const leg = this.table.leg(entry.route) ?? this.table.loopOf(entry.route)?.legs[0];
    const sessions = leg ? [...leg.from.map((f) => f.session), leg.to.session] : [];
    this.deps.publish('route_event', { type: 'route_event', id: 0, entry }, sessions);
  }
}
