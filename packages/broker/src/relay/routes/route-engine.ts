import type { EventName, Push, RouteInfo, RouteLogEntry, SessionState } from '@clippy/protocol';
import { compileUserRegex, type LineRegex } from '@clippy/turns';
import { HandlerError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Session, SessionClient } from '../../sessions/session.js';
import { findTurn } from '../../detection/find-turn.js';
import type { StoredTurn } from '../../detection/turn-ring.js';
import { injectInto } from '../inject-into-session.js';
import { RemoteSource } from './remote-source.js';
import { RouteLog } from './route-log.js';
import { WRAP_TEMPLATE, checked, render, resolveTemplate, type Template } from './templates.js';

// Routes live in the daemon (broker/src/relay/ beside injection, DESIGN.md): fired by
// `turn_completed`, they inject through the same path as `relay` (idle wait, bracketed paste,
// a separate Enter, confirmation), so they keep running when every client has gone. They are
// kept in memory: a daemon restart ends them (docs/routes.md).

/** Default bound on a chain of automatic injections set off by one turn (loops have their own end). */
export const DEFAULT_HOP_LIMIT = 10;
/** Default rounds of a loop. */
export const DEFAULT_LOOP_ROUNDS = 5;
/** Messages waiting per target while it is busy; past it the oldest is dropped (and logged). */
export const ROUTE_QUEUE_LIMIT = 16;
/** Turn IDs remembered per route to fire each turn at most once, whatever happens to events. */
const FIRED_MEMORY = 256;

type Kind = RouteInfo['kind'];

interface End {
  session: string;
  name: string;
}

interface LoopState {
  name: string;
  until: LineRegex;
  rounds: number;
  round: number;
  a: string;
  b: string;
  legs: Leg[];
  ended: boolean;
  /** The turn whose text matched `until`, once one did. */
  endedBy: string | null;
}

interface Leg {
  name: string;
  kind: Kind;
  from: End[];
  to: End;
  template: Template;
  wrap: string;
  when: LineRegex | null;
  includeInterrupted: boolean;
  hopLimit: number;
  state: RouteInfo['state'];
  reason: string | null;
  fired: number;
  createdAt: number;
  loop: LoopState | null;
  /** Fan-in: each source's newest turn not yet combined. */
  pending: Map<string, RouteTurn>;
  seen: string[];
  /** A source on another machine (`host:session`), followed through its forwarded socket. */
  remote: RemoteSource | null;
}

/** What a route needs of a turn (a stored one, or one read from another machine). */
interface RouteTurn {
  turn_id: string;
  text: string;
  prompt: string;
  interrupted: boolean;
}

interface QueueItem {
  leg: Leg;
  message: string;
  turnIds: string[];
  /** Hops of the chain this injection continues. */
  depth: number;
}

export interface RouteEngineDeps {
  sessions: {
    resolve(ref: string): Session | undefined;
    wrapperOf(session: Session): SessionClient | undefined;
  };
  log: Logger;
  env: Record<string, string | undefined>;
  /** Sends a route push to subscribers of `event` (about any of `sessions`). */
  publish(event: EventName, push: Push, sessions: string[]): void;
}

export interface RouteOptions {
  name?: string | undefined;
  template?: string | undefined;
  wrap?: string | undefined;
  when?: string | undefined;
  include_interrupted?: boolean | undefined;
  hop_limit?: number | undefined;
}

/** A user pattern on the linear-time engine (as prompt patterns); `invalid_pattern` naming the option. */
function pattern(option: string, source: string): LineRegex {
  try {
    new RegExp(source, 'u');
    return compileUserRegex(source);
  } catch (err) {
    throw new HandlerError('invalid_pattern', `${option} '${source}': ${(err as Error).message}`);
  }
}

export class RouteEngine {
  private readonly legs = new Map<string, Leg>();
  private readonly loops = new Map<string, LoopState>();
  private readonly queues = new Map<string, QueueItem[]>();
  private readonly delivering = new Set<string>();
  /** Hops behind the next turn of a session that a route injected into. */
  private readonly nextDepth = new Map<string, number>();
  /** Per name prefix (`r`, `loop`): the last number given. */
  private readonly counters = new Map<string, number>();
  readonly log: RouteLog;

  constructor(private readonly deps: RouteEngineDeps) {
    this.log = new RouteLog(deps.log, (entry) => this.publishEntry(entry));
  }

  // --- commands ---

  addRoute(fromRefs: string[], toRef: string, opts: RouteOptions): RouteInfo {
    const from = fromRefs.map((r) => this.end(r, true));
    const to = this.end(toRef, true);
    if (from.some((f) => f.session === to.session)) {
      throw new HandlerError(
        'invalid_argument',
        `a route from '${to.name}' into itself would feed on its own answers; use \`clippy loop\` between two sessions`,
      );
    }
    if (new Set(from.map((f) => f.session)).size !== from.length) {
      throw new HandlerError('invalid_argument', 'a fan-in names each source once');
    }
    if (opts.template !== undefined && opts.wrap !== undefined) {
      throw new HandlerError('invalid_argument', 'give a template or --wrap, not both');
    }
    const cycle = this.cycleThrough(from, to);
    if (cycle) {
      throw new HandlerError(
        'invalid_argument',
        `this route would close a cycle (${cycle.join(' → ')}): routes may not feed each other for ever; a loop between two agents has an end condition (\`clippy loop A B --until RE\`)`,
      );
    }
    const fanIn = from.length > 1;
    const name = this.newName(opts.name, 'r');
    const leg = this.makeLeg(
      name,
      fanIn ? 'fan_in' : 'route',
      from,
      to,
      opts,
      fanIn ? 'synthesize' : 'plain',
    );
    this.legs.set(name, leg);
    this.log.add({ route: name, event: 'added', turn_ids: [], to: to.name, reason: null });
    return this.info(leg);
  }

  addLoop(
    aRef: string,
    bRef: string,
    opts: {
      until: string;
      rounds?: number | undefined;
      name?: string | undefined;
      template_a?: string | undefined;
      template_b?: string | undefined;
      prompt?: string | undefined;
      include_interrupted?: boolean | undefined;
      hop_limit?: number | undefined;
    },
  ): RouteInfo[] {
    const a = this.end(aRef, true);
    const b = this.end(bRef, true);
    if (a.session === b.session) {
      throw new HandlerError('invalid_argument', 'a loop runs between two different sessions');
    }
    const until = pattern('--until', opts.until);
    const name = this.newName(opts.name, 'loop');
    for (const leg of [`${name}.a`, `${name}.b`]) {
      if (this.legs.has(leg))
        throw new HandlerError('duplicate_route', `a route is named '${leg}'`);
    }
    const loop: LoopState = {
      name,
      until,
      rounds: opts.rounds ?? DEFAULT_LOOP_ROUNDS,
      round: 0,
      a: a.session,
      b: b.session,
      legs: [],
      ended: false,
      endedBy: null,
    };
    // A loop's hops are bounded by its rounds: two per round, and the prompt.
    const hopLimit = Math.max(opts.hop_limit ?? DEFAULT_HOP_LIMIT, 2 * loop.rounds + 1);
    const common = { include_interrupted: opts.include_interrupted, hop_limit: hopLimit };
    const legA = this.makeLeg(
      `${name}.a`,
      'loop',
      [a],
      b,
      { ...common, template: opts.template_a },
      'plain',
    );
    const legB = this.makeLeg(
      `${name}.b`,
      'loop',
      [b],
      a,
      { ...common, template: opts.template_b },
      'plain',
    );
    legA.loop = loop;
    legB.loop = loop;
    loop.legs = [legA, legB];
    this.loops.set(name, loop);
    this.legs.set(legA.name, legA);
    this.legs.set(legB.name, legB);
    this.log.add({
      route: name,
      event: 'added',
      turn_ids: [],
      to: null,
      reason: `until /${opts.until}/, ${loop.rounds} rounds`,
    });
    if (opts.prompt !== undefined && opts.prompt !== '') {
      this.enqueue(a.session, { leg: legB, message: opts.prompt, turnIds: [], depth: 0 });
    }
    return [this.info(legA), this.info(legB)];
  }

  /**
   * A route whose source is a session on another machine, reached through `remote.socket` (an
   * SSH forwarding of that machine's broker socket, set up by the CLI). Its turns carry no hop
   * count across machines; the target's own routes still count from there.
   */
  async addRemoteRoute(
    fromRef: string,
    remote: { socket: string; host: string },
    toRef: string,
    opts: RouteOptions,
  ): Promise<RouteInfo> {
    const to = this.end(toRef, true);
    if (opts.template !== undefined && opts.wrap !== undefined) {
      throw new HandlerError('invalid_argument', 'give a template or --wrap, not both');
    }
    const label = `${remote.host}:${fromRef}`;
    const from: End = { session: label, name: label };
    const name = this.newName(opts.name, 'r');
    const leg = this.makeLeg(name, 'route', [from], to, opts, 'plain');
    try {
      leg.remote = await RemoteSource.open(remote.socket, fromRef, {
        turn: (turn) => {
          if (this.legs.get(name) === leg) this.fire(leg, { id: label, name: label }, turn, 0);
        },
        exited: () => this.endLeg(leg, `source '${label}' exited`),
        lost: (reason) => this.endLeg(leg, `lost the link to ${remote.host}: ${reason}`),
      });
    } catch (err) {
      throw new HandlerError(
        'session_not_found',
        `cannot follow '${fromRef}' on ${remote.host}: ${(err as Error).message}`,
      );
    }
    if (this.legs.has(name)) {
      leg.remote.dispose();
      throw new HandlerError('duplicate_route', `a route or loop is already named '${name}'`);
    }
    this.legs.set(name, leg);
    this.log.add({ route: name, event: 'added', turn_ids: [], to: to.name, reason: null });
    return this.info(leg);
  }

  private endLeg(leg: Leg, reason: string): void {
    if (leg.state === 'ended') return;
    leg.state = 'ended';
    leg.reason = reason;
    leg.remote?.dispose();
    this.dropQueued(leg, reason);
    this.log.add({ route: leg.name, event: 'ended', turn_ids: [], to: leg.to.name, reason });
  }

  /** Ends the links to other machines (the daemon stops). */
  dispose(): void {
    for (const leg of this.legs.values()) leg.remote?.dispose();
  }

  /** Turns of one session rendered with a route template (`replay --template`). */
  renderTurns(templateName: string, source: string, turns: RouteTurn[]): string {
    const template = resolveTemplate(templateName, this.deps.env);
    return render(template, {
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
    return [...this.legs.values()].map((l) => this.info(l));
  }

  remove(name: string): string[] {
    const legs = this.named(name);
    for (const leg of legs) {
      this.legs.delete(leg.name);
      leg.remote?.dispose();
      this.dropQueued(leg, 'route removed');
    }
    if (this.loops.has(name) || legs[0]?.loop) this.loops.delete(legs[0]!.loop?.name ?? name);
    this.log.add({ route: name, event: 'removed', turn_ids: [], to: null, reason: null });
    return legs.map((l) => l.name);
  }

  pause(name: string): RouteInfo[] {
    const legs = this.named(name);
    for (const leg of legs) {
      if (leg.state !== 'active') continue;
      leg.state = 'paused';
      leg.reason = 'paused by a user';
      this.dropQueued(leg, 'route paused');
    }
    this.log.add({ route: name, event: 'paused', turn_ids: [], to: null, reason: 'by a user' });
    return legs.map((l) => this.info(l));
  }

  resume(name: string): RouteInfo[] {
    const legs = this.named(name);
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
    return legs.map((l) => this.info(l));
  }

  entries(name: string | undefined, limit: number): RouteLogEntry[] {
    if (name === undefined) return this.log.list(null, limit);
    const names = new Set<string>([name]);
    const loop = this.loops.get(name) ?? this.legs.get(name)?.loop;
    if (loop) for (const n of [loop.name, ...loop.legs.map((l) => l.name)]) names.add(n);
    else if (!this.legs.has(name) && this.log.list(names, 1).length === 0) {
      throw new HandlerError('route_not_found', `no route or loop is named '${name}'`);
    }
    return this.log.list(names, limit);
  }

  // --- events (from the broker's event stream) ---

  onEvent(event: EventName, session: Session, push: Push): void {
    if (this.legs.size === 0 && this.queues.size === 0) return;
    if (event === 'turn_completed' && push.type === 'turn_completed') {
      this.onTurn(session, push.turn.turn_id);
    } else if (event === 'state_changed') {
      if (session.state === 'idle') void this.deliver(session.id);
    } else if (event === 'session_exited' || event === 'session_removed') {
      this.onExit(session);
    }
  }

  private onTurn(session: Session, turnId: string): void {
    const depth = this.nextDepth.get(session.id) ?? 0;
    this.nextDepth.delete(session.id);
    let turn: StoredTurn;
    try {
      turn = findTurn(this.deps.sessions, turnId);
    } catch {
      return; // evicted already: nothing to forward
    }
    // A loop's end condition is checked on every turn of either agent, first.
    for (const loop of this.loops.values()) {
      if (loop.ended || (loop.a !== session.id && loop.b !== session.id)) continue;
      if (loop.legs.some((l) => l.state === 'paused')) continue;
      if (loop.until.test(turn.text)) {
        loop.endedBy = turn.turn_id;
        this.endLoop(loop, `turn ${turn.turn_id} of '${session.name}' matched --until`, [
          turn.turn_id,
        ]);
      }
    }
    for (const leg of this.legs.values()) {
      if (!leg.from.some((f) => f.session === session.id)) continue;
      // The turn that ended its loop is in the loop's `ended` entry: not a skip besides.
      if (leg.loop?.endedBy === turn.turn_id) continue;
      this.fire(leg, session, turn, depth);
    }
  }

  private fire(
    leg: Leg,
    source: { id: string; name: string },
    turn: RouteTurn,
    depth: number,
  ): void {
    const ids = [turn.turn_id];
    const skip = (reason: string) =>
      this.log.add({ route: leg.name, event: 'skipped', turn_ids: ids, to: leg.to.name, reason });
    if (leg.seen.includes(turn.turn_id)) return;
    leg.seen.push(turn.turn_id);
    if (leg.seen.length > FIRED_MEMORY) leg.seen.shift();
    if (leg.state !== 'active')
      return skip(`route ${leg.state}${leg.reason ? `: ${leg.reason}` : ''}`);
    if (turn.interrupted && !leg.includeInterrupted) return skip('the turn was interrupted');
    if (leg.when && !leg.when.test(turn.text))
      return skip(`the turn does not match --when /${leg.when.source}/`);
    if (depth + 1 > leg.hopLimit) {
      return skip(
        `hop limit ${leg.hopLimit} reached: this turn came from a chain of ${depth} automatic injections`,
      );
    }
    const loop = leg.loop;
    if (loop && leg === loop.legs[0]) {
      if (loop.round >= loop.rounds) {
        this.endLoop(loop, `${loop.rounds} rounds ran`, ids);
        return;
      }
      loop.round++;
    }
    let view;
    if (leg.kind === 'fan_in') {
      leg.pending.set(source.id, turn);
      const waiting = leg.from.filter((f) => !leg.pending.has(f.session)).map((f) => f.name);
      if (waiting.length > 0) {
        this.log.add({
          route: leg.name,
          event: 'queued',
          turn_ids: ids,
          to: leg.to.name,
          reason: `waiting for ${waiting.join(', ')}`,
        });
        return;
      }
      const turns = leg.from.map((f) => ({ end: f, turn: leg.pending.get(f.session)! }));
      leg.pending.clear();
      ids.splice(0, 1, ...turns.map((t) => t.turn.turn_id));
      view = {
        text: turns.map((t) => t.turn.text).join('\n\n'),
        prompt: turns.map((t) => t.turn.prompt).join('\n'),
        source: turns.map((t) => t.end.name).join(', '),
        turn_id: ids.join(', '),
        round: 0,
        turns: turns.map((t) => ({
          source: t.end.name,
          text: t.turn.text,
          prompt: t.turn.prompt,
          turn_id: t.turn.turn_id,
        })),
        wrap: leg.wrap,
      };
    } else {
      view = {
        text: turn.text,
        prompt: turn.prompt,
        source: source.name,
        turn_id: turn.turn_id,
        round: loop?.round ?? 0,
        turns: [
          { source: source.name, text: turn.text, prompt: turn.prompt, turn_id: turn.turn_id },
        ],
        wrap: leg.wrap,
      };
    }
    this.enqueue(leg.to.session, {
      leg,
      message: render(leg.template, view),
      turnIds: ids,
      depth: depth + 1,
    });
  }

  private onExit(session: Session): void {
    for (const leg of this.legs.values()) {
      if (leg.state === 'ended') continue;
      if (leg.loop && (leg.loop.a === session.id || leg.loop.b === session.id)) {
        if (!leg.loop.ended) this.endLoop(leg.loop, `'${session.name}' exited`, []);
      } else if (leg.from.some((f) => f.session === session.id)) {
        leg.state = 'ended';
        leg.reason = `source '${session.name}' exited`;
        this.dropQueued(leg, leg.reason);
        this.log.add({
          route: leg.name,
          event: 'ended',
          turn_ids: [],
          to: leg.to.name,
          reason: leg.reason,
        });
      } else if (leg.to.session === session.id && leg.state === 'active') {
        leg.state = 'paused';
        leg.reason = `target '${session.name}' exited`;
        this.dropQueued(leg, leg.reason);
        this.log.add({
          route: leg.name,
          event: 'paused',
          turn_ids: [],
          to: leg.to.name,
          reason: leg.reason,
        });
      }
    }
    this.queues.delete(session.id);
  }

  private endLoop(loop: LoopState, reason: string, ids: string[]): void {
    loop.ended = true;
    for (const leg of loop.legs) {
      leg.state = 'ended';
      leg.reason = reason;
      this.dropQueued(leg, `loop ended: ${reason}`);
    }
    this.log.add({ route: loop.name, event: 'ended', turn_ids: ids, to: null, reason });
  }

  // --- delivery ---

  private enqueue(target: string, item: QueueItem): void {
    const queue = this.queues.get(target) ?? [];
    this.queues.set(target, queue);
    queue.push(item);
    if (queue.length > ROUTE_QUEUE_LIMIT) {
      const old = queue.shift()!;
      this.log.add({
        route: old.leg.name,
        event: 'dropped',
        turn_ids: old.turnIds,
        to: old.leg.to.name,
        reason: `${ROUTE_QUEUE_LIMIT} messages already waited for '${old.leg.to.name}' (oldest dropped)`,
      });
    }
    const session = this.deps.sessions.resolve(target);
    if (session && session.state !== 'idle') {
      this.log.add({
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
  private async deliver(target: string): Promise<void> {
    if (this.delivering.has(target)) return;
    this.delivering.add(target);
    try {
      for (;;) {
        const queue = this.queues.get(target);
        const session = this.deps.sessions.resolve(target);
        if (!queue || queue.length === 0 || !session) return;
        if (!session.live) {
          for (const item of queue.splice(0))
            this.dropItem(item, `target '${session.name}' exited`);
          return;
        }
        if ((session.state as SessionState) !== 'idle') return; // state_changed → idle resumes
        const item = queue.shift()!;
        const bytes = Buffer.from(item.message, 'utf8');
        try {
          // The queue waited for idle: injection checks again, as relay does (never into a busy target).
          await injectInto(
            this.deps.sessions,
            session,
            { content: bytes, text: item.message },
            { enter: true },
          );
        } catch (err) {
          if (err instanceof HandlerError && err.code === 'target_busy') {
            queue.unshift(item); // went busy meanwhile: the next idle sends it
            return;
          }
          this.log.add({
            route: item.leg.name,
            event: 'failed',
            turn_ids: item.turnIds,
            to: item.leg.to.name,
            reason: (err as Error).message,
          });
          continue;
        }
        item.leg.fired++;
        this.nextDepth.set(target, item.depth);
        this.log.add({
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
          [...item.leg.from.map((f) => f.session), target],
        );
      }
    } finally {
      this.delivering.delete(target);
    }
  }

  private dropQueued(leg: Leg, reason: string): void {
    const queue = this.queues.get(leg.to.session);
    if (!queue) return;
    for (let i = queue.length - 1; i >= 0; i--) {
      if (queue[i]!.leg === leg) this.dropItem(queue.splice(i, 1)[0]!, reason);
    }
  }

  private dropItem(item: QueueItem, reason: string): void {
    this.log.add({
      route: item.leg.name,
      event: 'dropped',
      turn_ids: item.turnIds,
      to: item.leg.to.name,
      reason,
    });
  }

  // --- helpers ---

  private end(ref: string, live: boolean): End {
    const session = this.deps.sessions.resolve(ref);
    if (!session)
      throw new HandlerError('session_not_found', `no session has the ID or name '${ref}'`);
    if (live && !session.live) {
      throw new HandlerError(
        'session_exited',
        `session '${session.name}' has exited: a route needs it running`,
      );
    }
    return { session: session.id, name: session.name };
  }

  private newName(given: string | undefined, prefix: string): string {
    if (given !== undefined) {
      if (this.legs.has(given) || this.loops.has(given)) {
        throw new HandlerError('duplicate_route', `a route or loop is already named '${given}'`);
      }
      return given;
    }
    let name;
    let n = this.counters.get(prefix) ?? 0;
    do name = `${prefix}${++n}`;
    while (this.legs.has(name) || this.loops.has(name));
    this.counters.set(prefix, n);
    return name;
  }

  private makeLeg(
    name: string,
    kind: Kind,
    from: End[],
    to: End,
    opts: RouteOptions,
    defaultTemplate: string,
  ): Leg {
    const template =
      opts.wrap !== undefined
        ? checked('wrap', WRAP_TEMPLATE)
        : resolveTemplate(opts.template ?? defaultTemplate, this.deps.env);
    return {
      name,
      kind,
      from,
      to,
      template,
      wrap: opts.wrap ?? '',
      when: opts.when !== undefined ? pattern('--when', opts.when) : null,
      includeInterrupted: opts.include_interrupted ?? false,
      hopLimit: opts.hop_limit ?? DEFAULT_HOP_LIMIT,
      state: 'active',
      reason: null,
      fired: 0,
      createdAt: Date.now(),
      loop: null,
      pending: new Map(),
      seen: [],
      remote: null,
    };
  }

  /** The sessions of a cycle that routes (not loops) from `from` into `to` would close, or null. */
  private cycleThrough(from: End[], to: End): string[] | null {
    const next = new Map<string, End[]>();
    for (const leg of this.legs.values()) {
      if (leg.loop || leg.state === 'ended') continue;
      for (const f of leg.from) next.set(f.session, [...(next.get(f.session) ?? []), leg.to]);
    }
    const sources = new Set(from.map((f) => f.session));
    // Depth-first from the target: reaching a source means the new route closes a cycle.
    const path: End[] = [to];
    const seen = new Set<string>();
    const walk = (at: End): boolean => {
      if (sources.has(at.session)) return true;
      if (seen.has(at.session)) return false;
      seen.add(at.session);
      for (const n of next.get(at.session) ?? []) {
        path.push(n);
        if (walk(n)) return true;
        path.pop();
      }
      return false;
    };
    if (!walk(to)) return null;
    const last = path[path.length - 1]!;
    return [last.name, ...path.map((e) => e.name)].filter(
      (_, i, a) => i === 0 || a[i] !== a[i - 1],
    );
  }

  /** A route by name, or both legs of a loop. */
  private named(name: string): Leg[] {
    const loop = this.loops.get(name);
    if (loop) return loop.legs;
    const leg = this.legs.get(name);
    if (!leg) throw new HandlerError('route_not_found', `no route or loop is named '${name}'`);
    return leg.loop ? leg.loop.legs : [leg];
  }

  private info(leg: Leg): RouteInfo {
    return {
      route: leg.name,
      kind: leg.kind,
      from: leg.from,
      to: leg.to,
      template: leg.template.name,
      when: leg.when?.source ?? null,
      include_interrupted: leg.includeInterrupted,
      hop_limit: leg.hopLimit,
      state: leg.state,
      reason: leg.reason,
      fired: leg.fired,
      queued: (this.queues.get(leg.to.session) ?? []).filter((i) => i.leg === leg).length,
      created_at: leg.createdAt,
      loop: leg.loop
        ? {
            name: leg.loop.name,
            until: leg.loop.until.source,
            rounds: leg.loop.rounds,
            round: leg.loop.round,
          }
        : null,
    };
  }

  private publishEntry(entry: RouteLogEntry): void {
    const leg = this.legs.get(entry.route) ?? this.loops.get(entry.route)?.legs[0];
    const sessions = leg ? [...leg.from.map((f) => f.session), leg.to.session] : [];
    this.deps.publish('route_event', { type: 'route_event', id: 0, entry }, sessions);
  }
}
