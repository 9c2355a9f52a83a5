import { chmodSync, lstatSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeFrame, type EventName, type Push } from '@clippy/protocol';
import { resolveConfig, stateDir, type BrokerConfig, type BrokerOptions } from './config.js';
import { createLogger, type Logger } from './log.js';
import { ClientConnection, type ConnectionHost } from './connection.js';
import type { BrokerPorts, NewSessionParams } from './handlers/context.js';
import { SessionTable, type RemovedBy } from './sessions/session-table.js';
import {
  Session,
  type SessionClient,
  type SessionObserver,
  type SessionParams,
} from './sessions/session.js';
import type { RelayEntry } from './relay/relay-buffer.js';
import { RouteEngine } from './relay/routes/route-engine.js';
import { FocusState } from './focus/focus-state.js';
import { Notifier } from './notify/notifier.js';
import { createSessionTurns, type TurnsHost } from './detection/create-session-turns.js';
import { TurnProgressFeeds } from './turn-progress/turn-progress.js';
import { loadStartSettings, loadTurnConfig } from './turn-config/turn-config.js';
import type { Connection, InputLimits, Transport } from './transports/transport.js';
import { PartialFrameBudget } from './transports/partial-frames.js';
import { PendingConnections } from './transports/pending-connections.js';
import { UnixTransport } from './transports/unix.js';
import { WsTransport } from './transports/ws.js';
import { WebHost } from './web/web-host.js';
import { WebPortFile } from './web/web-port.js';
import { WebRemotes } from './web/web-remotes.js';
import { WebTokenFile } from './web/web-token.js';
import { REFUSAL_REPORT_INTERVAL_MS, WebRefusals } from './web/refusals.js';
import { NotOwnError, ownFolder } from './own-files.js';
import { CLOSE_FLUSH_MS } from './constants.js';
import {
  openHistory,
  restoreSessions,
  persistExit,
  EXIT_RECORD_WAIT_MS,
} from './store/broker-history.js';
import type { TurnStore } from './store/turn-store.js';
import { Worktrees } from './worktrees/worktrees.js';
import { SessionReaper } from './pty/session-reaper.js';
import { PtySpawner } from '@clippy/system/pty';

function readPackageVersion(): string {
  try {
    // src/ and dist/ both sit one level below the package root.
    const pkgPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json');
    return (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** The session table as seen from outside the broker (tests, status): lookups only. */
export type SessionLookup = Pick<SessionTable, 'resolve' | 'all' | 'live' | 'size'>;

/**
 * The broker: owns the transports, the connections, the session table and the relay buffer,
 * broadcasts events, and runs the shutdown sequence. Handlers reach it through the narrow ports
 * it hands each connection (handlers/context.ts). Created by `startBroker`.
 */
export class Broker {
  readonly startedAt = Date.now();
  readonly packageVersion = readPackageVersion();
  private readonly sessions = new SessionTable();
  private readonly clients = new Set<ClientConnection>();
  /** Survives pastes; replaced only by the next capture/put_buffer (or broker exit). */
  private relayEntry: RelayEntry | null = null;
  /** Which attached terminal the user looks at (focus reports), and attach clients' PIDs. */
  private readonly focus = new FocusState();
  /** Notifications (turn finished, waiting for you) and unread turns. */
  private readonly notifier: Notifier;
  private transports: Transport[] = [];
  /** The web view's endpoint; created with the transports (it shares their input limits). */
  private webHost: WebHost | null = null;
  /** The other machines (config.json `hosts`) whose sessions the web view shows. */
  private readonly webRemotes: WebRemotes;
  /** The web view's refused requests: counted, logged in summary, wrong tokens slowed. */
  private readonly webRefusals = new WebRefusals((summary, first) =>
    this.log.warn(
      summary,
      first
        ? `web view request refused: ${Object.keys(summary.reasons)[0]} (later ones are counted and logged every ${REFUSAL_REPORT_INTERVAL_MS / 1000} s)`
        : `web view requests refused: ${summary.refused} since the last report`,
    ),
  );
  private closing: Promise<void> | null = null;
  private readonly sessionObserver: SessionObserver;
  private readonly connectionHost: ConnectionHost;
  /** Where sessions' turns report: broker events and the log. */
  private readonly turnsHost: TurnsHost;
  /** The opt-in turn history; null when it could not be opened (the daemon runs without). */
  history: TurnStore | null = null;
  /** Why the history could not be opened at start (null: it opened). */
  historyUnavailable: string | null = null;
  /** Routes, loops and fan-ins: fired by turns, injecting through the relay path. */
  private readonly routes: RouteEngine;
  /** Exit records being written (shutdown waits for them). */
  private readonly pendingExits = new Set<Promise<void>>();
  /** `turn_progress` pushes, for the sessions a connection asked them about. */
  private readonly progress = new TurnProgressFeeds({
    wants: (session) => this.wantsProgress(session),
    publish: (session, push) => this.publish('turn_progress', push, [session.id, session.name]),
  });
  /** Sessions' git worktrees: made, diffed, counted and removed (git runs as its own process). */
  private readonly worktrees: Worktrees;
  /** Ends the sessions' processes if this daemon ends without doing so (killed, crashed). */
  private readonly reaper: SessionReaper;
  /** Starts the sessions' programs, so that the daemon itself never forks (pty-spawner.ts). */
  private readonly spawner: PtySpawner;

  private constructor(
    readonly config: BrokerConfig,
    readonly log: Logger,
    private readonly options: BrokerOptions,
  ) {
    this.webRemotes = new WebRemotes(options.env ?? process.env, log);
    this.reaper = new SessionReaper(log);
    this.spawner = new PtySpawner((message) => log.warn(message));
    this.notifier = new Notifier({
      env: options.env ?? process.env,
      log,
      focus: this.focus,
      attachedClients: () => this.attachedClients(),
      unreadChanged: (session) => this.unreadChanged(session),
      webUrl: (session) => this.webHost?.link(session?.name ?? null) ?? null,
    });
    this.sessionObserver = {
      stateChanged: (session, previous) => {
        this.emitEvent('state_changed', session, {
          type: 'state_changed',
          id: 0,
          session: session.id,
          name: session.name,
          state: session.state,
          previous,
          ...(session.menu ? { menu: session.menu } : {}),
        });
        this.notifier.stateChanged(session);
      },
      exited: (session) => {
        if (session.kind === 'pty') this.reaper.remove(session.pid);
        if (session.persisted && this.history) {
          const written = persistExit(this.history, session, this.log);
          this.pendingExits.add(written);
          void written.finally(() => this.pendingExits.delete(written));
        }
        this.log.info(
          {
            session: session.id,
            name: session.name,
            exit_code: session.exitCode,
            signal: session.exitSignal,
          },
          'session exited',
        );
        this.emitEvent('session_exited', session, {
          type: 'session_exited',
          id: 0,
          session: session.id,
          name: session.name,
          exit_code: session.exitCode,
          signal: session.exitSignal,
        });
      },
      slowConsumer: (session, client) => this.detachSlowConsumer(session, client),
      // Viewers that show the session at its real size (the web view) follow it.
      resized: (session) =>
        this.publish(
          'session_resized',
          {
            type: 'session_resized',
            id: 0,
            session: session.id,
            name: session.name,
            cols: session.cols,
            rows: session.rows,
          },
          [session.id, session.name],
        ),
    };
    // The history is opened after the socket is bound: read it when used, not now.
    const history = () => this.history;
    this.turnsHost = {
      events: { emit: (event, session, push) => this.emitEvent(event, session, push) },
      log: this.log,
      get history() {
        return history();
      },
    };
    this.worktrees = new Worktrees({ env: options.env ?? process.env, log: this.log });
    this.routes = new RouteEngine({
      diffOf: (id) => {
        const session = this.sessions.resolve(id);
        return session?.worktree ? this.worktrees.templateDiff(session) : null;
      },
      sessions: {
        resolve: (ref) => this.sessions.resolve(ref),
        wrapperOf: (session) => [...this.clients].find((c) => c.registered.has(session)),
      },
      log: this.log,
      env: options.env ?? process.env,
      publish: (event, push, sessionIds) => this.publish(event, push, sessionIds),
      notify: (session, title, body) => this.notifier.needsYou(session, title, body),
    });
    this.connectionHost = this.makeConnectionHost();
  }

  /** What connections and their handlers may reach: the ports, and the connection's own bookkeeping. */
  private makeConnectionHost(): ConnectionHost {
    const { sessions, clients } = this;
    const history = () => this.history;
    const historyUnavailable = () => this.historyUnavailable;
    const ports: BrokerPorts = {
      sessions: {
        resolve: (ref) => sessions.resolve(ref),
        all: () => sessions.all(),
        live: () => sessions.live(),
        get size() {
          return sessions.size;
        },
        nameTaken: (name) => sessions.nameTaken(name),
        uniqueName: (base) => sessions.uniqueName(base),
        newId: () => sessions.newId(),
        create: (params) => this.createSession(params),
        remove: (session, by) => this.removeSession(session, by),
        removed: (ref) => sessions.removed(ref),
        revive: (old, params) => this.reviveSession(old, params),
        endWrapper: (session) => session.markExited(),
        wrapperOf: (session) => [...this.clients].find((c) => c.registered.has(session)),
        attachedClients: () => this.attachedClients(),
      },
      focus: this.focus,
      notify: this.notifier,
      routes: this.routes,
      progress: {
        subscriptionsChanged: () => this.progress.refresh(sessions.live()),
      },
      worktrees: this.worktrees,
      get history() {
        return history();
      },
      get historyUnavailable() {
        return historyUnavailable();
      },
      relayBuffer: {
        get: () => this.relayEntry,
        set: (entry) => {
          this.relayEntry = entry;
        },
      },
      daemon: {
        log: this.log,
        packageVersion: this.packageVersion,
        startedAt: this.startedAt,
        socketPath: this.socketPath,
        wsSocketPath: this.wsSocketPath,
        logFile: this.config.logFile,
        web: {
          // No port asked: config.json's, read now (as a spawn reads its settings), else any.
          start: (port, rotate, code) =>
            this.requireWebHost().start(
              port ?? loadTurnConfig(this.options.env ?? process.env).webPort,
              rotate,
              code,
            ),
          stop: () => this.requireWebHost().stop(),
          hosts: () => this.webRemotes.hosts(),
        },
        get clientCount() {
          return clients.size;
        },
        close: (reason) => this.close(reason),
        spawnPty: (options) => this.spawner.spawn(options),
      },
    };
    const isStopping = () => this.stopping;
    return {
      log: this.log,
      helloTimeoutMs: this.config.limits.helloTimeoutMs,
      packageVersion: this.packageVersion,
      get stopping() {
        return isStopping();
      },
      ports,
      closed: (connection) => {
        for (const session of sessions.all()) session.drop(connection);
        this.notifier.connectionClosed(connection);
        this.clients.delete(connection);
        this.log.debug({ conn: connection.number }, 'client disconnected');
      },
    };
  }

  /** Every attached client with the sessions it is attached to (oldest session first). */
  private attachedClients(): Map<SessionClient, Session[]> {
    const map = new Map<SessionClient, Session[]>();
    for (const session of this.sessions.all()) {
      for (const client of session.clients()) {
        const list = map.get(client);
        if (list) list.push(session);
        else map.set(client, [session]);
      }
    }
    return map;
  }

  /** Tells subscribers a session's unread count. */
  private unreadChanged(session: Session): void {
    this.publish(
      'unread_changed',
      {
        type: 'unread_changed',
        id: 0,
        session: session.id,
        name: session.name,
        unread: session.unread,
      } satisfies Push<'unread_changed'>,
      [session.id, session.name],
    );
  }

  /** The sessions, for lookups (tests, status); changed only through the handlers' ports. */
  get table(): SessionLookup {
    return this.sessions;
  }

  /** The connected clients, in the order they were accepted. */
  get connections(): ReadonlySet<ClientConnection> {
    return this.clients;
  }

  /** What the last capture or put_buffer stored. */
  get relayBuffer(): RelayEntry | null {
    return this.relayEntry;
  }

  static async start(options: BrokerOptions = {}): Promise<Broker> {
    const config = resolveConfig(options);
    const env = options.env ?? process.env;
    // A broken config.json or presets.json stops the start (InvalidConfigError), as it refuses
    // every spawn: the daemon never runs on settings the user did not write.
    const settings = loadStartSettings(env);
    prepareSocketDir(config);
    prepareStateDir(env);
    const log = options.logger ?? createLogger({ level: config.logLevel, file: config.logFile });
    const broker = new Broker(config, log, options);
    await broker.listen();
    // Both helper processes start now, while the daemon is small: each start is a fork of it,
    // and a fork makes the daemon's next writes fault on every page it had (pty-spawner.ts).
    broker.spawner.start();
    broker.reaper.start();
    // Only once the socket is ours (no other daemon here): the history is read and restored
    // synchronously, before any connection is served.
    ({ store: broker.history, unavailable: broker.historyUnavailable } = openHistory(
      env,
      settings,
      log,
    ));
    if (broker.history)
      restoreSessions(
        broker.history,
        broker.sessions,
        (p) => broker.restoredSession(p),
        settings,
        log,
      );
    log.info(
      { socket: config.paths.socket, ws_socket: config.websocket ? config.paths.wsSocket : null },
      'clippyd listening',
    );
    if (settings.webPort !== undefined) await broker.startConfiguredWeb(settings.webPort);
    else await broker.resumeWeb();
    return broker;
  }

  /**
   * config.json's `web.port`: the web view comes up with the daemon, on the same port with the
   * same token, so open pages reconnect by themselves. A port that cannot be had is logged; the
   * daemon runs on (`clippy web` then says why).
   */
  private async startConfiguredWeb(port: number): Promise<void> {
    try {
      const { url } = await this.requireWebHost().start(port);
      this.log.info(
        { port, url: url.replace(/#.*/, '') },
        'web view started (config.json web.port)',
      );
    } catch (err) {
      this.log.warn({ port, err: (err as Error).message }, 'web view not started');
    }
  }

  /** The web view ran when the last daemon ended (restart, crash, `kill -9`): it comes back. */
  private async resumeWeb(): Promise<void> {
    try {
      const status = await this.requireWebHost().resume();
      if (status)
        this.log.info(
          { port: status.port, ...(status.moved ? { moved: status.moved } : {}) },
          'web view started again (it ran when the daemon last stopped)',
        );
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'web view not started again');
    }
  }

  private async listen(): Promise<void> {
    const accept = (c: Connection) => this.accept(c);
    const { limits } = this.config;
    // One budget for every connection of both transports.
    const inputLimits: InputLimits = {
      budget: new PartialFrameBudget(limits.partialFramesLimit),
      frameTimeoutMs: limits.frameTimeoutMs,
      requestsPerTurn: limits.requestsPerTurn,
    };
    // Each socket counts its own connections that have not said hello (one log line per flood).
    const pending = (socket: string) =>
      new PendingConnections(limits.pendingHelloLimit, (closed) =>
        this.log.warn(
          { socket, closed, limit: limits.pendingHelloLimit },
          'connections that said no hello closed over the cap (the oldest first)',
        ),
      );
    this.transports.push(
      await UnixTransport.listen(
        this.config.paths.socket,
        inputLimits,
        pending(this.config.paths.socket),
        accept,
      ),
    );
    this.webHost = new WebHost({
      tokenFile: new WebTokenFile(this.config.webTokenFile),
      portFile: new WebPortFile(this.config.webPortFile),
      remotes: this.webRemotes,
      onNote: (message, fields) => this.log.warn(fields, message),
      limits: inputLimits,
      pendingLimit: limits.webPendingLimit,
      pendingTimeoutMs: limits.webPendingTimeoutMs,
      accept,
      onRefused: (reason, source, credential) =>
        this.webRefusals.refused(reason, source, credential),
      onPushedOut: (closed) =>
        this.log.warn(
          { closed, limit: limits.webPendingLimit },
          'web view connections without the token closed over the cap (the oldest first)',
        ),
    });
    if (this.config.websocket) {
      const wsOptions = {
        limits: inputLimits,
        pending: pending(this.config.paths.wsSocket),
        helloTimeoutMs: limits.helloTimeoutMs,
        token: () => this.config.wsToken ?? readWsToken(this.config.wsTokenFile),
        onRefused: (reason: string) => this.log.warn({ reason }, 'WebSocket upgrade refused'),
      };
      try {
        this.transports.push(
          await WsTransport.listen(this.config.paths.wsSocket, wsOptions, accept),
        );
      } catch (err) {
        await Promise.all(this.transports.map((t) => t.close()));
        throw err;
      }
    }
  }

  private requireWebHost(): WebHost {
    if (!this.webHost) throw new Error('the broker is not listening yet');
    return this.webHost;
  }

  get socketPath(): string {
    return this.config.paths.socket;
  }

  get wsSocketPath(): string | null {
    return this.config.websocket ? this.config.paths.wsSocket : null;
  }

  get stopping(): boolean {
    return this.closing !== null;
  }

  private accept(transport: Connection): void {
    if (this.stopping) {
      transport.destroy();
      return;
    }
    const connection = new ClientConnection(this.connectionHost, transport);
    this.clients.add(connection);
    this.log.debug({ conn: connection.number, transport: transport.transport }, 'client connected');
  }

  // --- sessions ---

  /** Builds a session whole (its turns with it), lists it, and only then announces it. */
  private createSession({ turns, ...params }: NewSessionParams): Session {
    const session = new Session({
      ...params,
      // Without a usable history nothing is persisted (status says why).
      persisted: Boolean(params.persisted && this.history),
      turns: (s) =>
        createSessionTurns(this.turnsHost, s, turns.preset, turns.config, turns.channel ?? null),
      id: params.id ?? this.sessions.newId(),
      flowLimits: this.config.limits,
      killGraceMs: this.config.limits.killGraceMs,
      observer: this.sessionObserver,
    });
    this.sessions.add(session);
    if (session.kind === 'pty' && session.live) this.reaper.add(session.pid);
    // A revived session's record is in the history already (with its turns).
    if (session.persisted && !this.history?.session(session.id)) {
      void this.history?.persistSession({
        id: session.id,
        name: session.name,
        command: session.command,
        args: session.args,
        cwd: session.cwd,
        preset: session.preset,
        created_at: session.createdAt,
        cols: session.cols,
        rows: session.rows,
        ...(session.worktree ? { worktree: session.worktree.record } : {}),
      });
    }
    this.log.info(
      {
        session: session.id,
        name: session.name,
        kind: session.kind,
        // Not `pid`: every line already carries the daemon's own under that key.
        childPid: session.pid,
        command: session.command,
      },
      'session created',
    );
    this.emitEvent('session_created', session, {
      type: 'session_created',
      id: 0,
      session: session.info(),
    });
    this.progress.refresh([session]);
    return session;
  }

  /** A session read back from the history (exited, listed, not announced: nobody listens yet). */
  private restoredSession(
    params: Omit<NewSessionParams, 'turns'> & {
      turns: NewSessionParams['turns'] | null;
      restored: NonNullable<SessionParams['restored']>;
    },
  ): Session {
    const session = new Session({
      ...params,
      id: params.id ?? this.sessions.newId(),
      turns: (s) =>
        params.turns
          ? createSessionTurns(this.turnsHost, s, params.turns.preset, params.turns.config)
          : null,
      flowLimits: this.config.limits,
      killGraceMs: this.config.limits.killGraceMs,
      observer: this.sessionObserver,
    });
    this.sessions.add(session);
    return session;
  }

  /**
   * An exited session started again under its ID: the old one leaves the table (its history
   * stays), the new one takes its turns, so numbering goes on. Clients still attached to the
   * old one are told it ended.
   */
  private reviveSession(old: Session, params: Omit<NewSessionParams, 'id'>): Session {
    const ring = old.turns?.ring;
    const kept = ring
      ? ring
          .list()
          .reverse()
          .map((m) => ring.get(m.seq)!)
      : [];
    const count = old.turnCount;
    const usage = ring?.usage;
    void old.detachAll(
      encodeFrame({
        type: 'detached',
        id: 0,
        session: old.id,
        reason: 'session_removed',
        message: `session '${old.name}' was revived: attach again`,
      } satisfies Push<'detached'>),
    );
    this.sessions.delete(old);
    old.dispose();
    const session = this.createSession({ ...params, id: old.id });
    session.turns?.ring.restore(kept, count, usage);
    // Turns read before (by `ask`, attach, a page) stay read.
    session.inheritRead(old);
    return session;
  }

  /** Removes an exited session: its attached clients are told, its screen is freed. */
  private removeSession(session: Session, by: RemovedBy): void {
    if (session.persisted) void this.history?.persistRemove(session.id);
    const frame = encodeFrame({
      type: 'detached',
      id: 0,
      session: session.id,
      reason: 'session_removed',
      message: `session '${session.name}' was removed`,
    } satisfies Push<'detached'>);
    void session.detachAll(frame);
    this.sessions.remove(session, by);
    this.notifier.sessionRemoved(session);
    session.dispose();
    this.log.info({ session: session.id, name: session.name }, 'session removed');
    this.emitEvent('session_removed', session, {
      type: 'session_removed',
      id: 0,
      session: session.id,
      name: session.name,
    });
  }

  private detachSlowConsumer(session: Session, client: SessionClient): void {
    if (!session.isAttached(client)) return;
    const terminal = session.writesTerminalOf(client);
    const farewell = encodeFrame({
      type: 'detached',
      id: 0,
      session: session.id,
      reason: 'slow_consumer',
      // The client names the session ("detached from NAME: …"): the message says only why.
      message:
        `the ${terminal ? 'terminal' : 'client'} fell more than ${this.config.limits.observerQueueLimit} bytes behind the output; ` +
        'attach again to resume from the current screen',
    } satisfies Push<'detached'>);
    this.log.warn(
      { session: session.id, queued: client.bufferedAmount, terminal },
      'slow consumer detached',
    );
    void session.detach(client, farewell);
  }

  // --- events ---

  private emitEvent(event: EventName, session: Session, push: Push): void {
    // A turn goes out with its hop count: routes on other daemons continue the chain from it.
    if (push.type === 'turn_completed') this.routes.countHops(session, push.turn);
    this.publish(event, push, [session.id, session.name]);
    if (push.type === 'turn_completed') {
      this.notifier.turnCompleted(session, push.turn);
      // Read at once (someone shows it) or one more unread: either way, said.
      this.unreadChanged(session);
    }
    // Routes act on the same events, after subscribers were told.
    this.routes.onEvent(event, session, push);
    this.worktrees.onEvent(event, session);
  }

  /** Whether a connection subscribed to `turn_progress` about this session. */
  private wantsProgress(session: Session): boolean {
    for (const c of this.clients) {
      const sub = c.subscription;
      if (!sub?.events?.has('turn_progress')) continue;
      if (!sub.sessions || sub.sessions.some((ref) => ref === session.id || ref === session.name))
        return true;
    }
    return false;
  }

  /** Sends an event push to each connection subscribed to it about one of `sessions`. */
  private publish(event: EventName, push: Push, sessions: string[]): void {
    let frame: Buffer | null = null;
    for (const c of this.clients) {
      const sub = c.subscription;
      if (!sub) continue;
      if (sub.events && !sub.events.has(event)) continue;
      if (sub.sessions && !sessions.some((ref) => sub.sessions!.includes(ref))) continue;
      frame ??= encodeFrame(push);
      c.send(frame);
    }
  }

  // --- lifecycle ---

  /**
   * Stops the broker: stop accepting, tell clients, end every session's process group
   * (SIGHUP, then SIGKILL after the grace), close connections, remove the sockets.
   */
  close(reason = 'broker shutting down'): Promise<void> {
    this.closing ??= this.runShutdown(reason);
    return this.closing;
  }

  dispose(): Promise<void> {
    return this.close();
  }

  private async runShutdown(reason: string): Promise<void> {
    this.log.info({ reason }, 'shutting down');
    this.progress.dispose();
    this.notifier.dispose();
    // Links to other machines' daemons (routes from there) end first: nothing more comes in.
    this.routes.dispose();
    this.worktrees.dispose();
    this.webRefusals.dispose();
    const transportsClosed = Promise.all([
      ...this.transports.map((t) => t.close()),
      this.webHost?.dispose(),
    ]);

    const shutdownFrame = encodeFrame({
      type: 'daemon_shutdown',
      id: 0,
      reason,
    } satisfies Push<'daemon_shutdown'>);
    // Each client hears of every session it shows before it hears that the daemon stops (a
    // terminal the daemon writes itself is given back first).
    const released: Promise<void>[] = [];
    for (const session of this.sessions.all()) {
      if (session.clientCount === 0) continue;
      const frame = encodeFrame({
        type: 'detached',
        id: 0,
        session: session.id,
        reason: 'daemon_shutdown',
        message: `the broker is shutting down: ${reason}`,
      } satisfies Push<'detached'>);
      released.push(session.tellAll(frame));
    }
    const shutdownSent = Promise.all(released).then(() => {
      for (const c of this.clients) c.send(shutdownFrame);
    });

    const live = this.sessions.live().filter((s) => s.kind === 'pty');
    for (const s of live) s.kill('SIGHUP');
    await waitAll(
      live.map((s) => s.waitExit()),
      this.config.limits.shutdownGraceMs,
    );
    const stubborn = live.filter((s) => s.live);
    for (const s of live) s.killGroupNow();
    if (stubborn.length > 0) {
      this.log.warn(
        { sessions: stubborn.map((s) => s.id) },
        'sessions did not exit on SIGHUP: killed',
      );
      await waitAll(
        stubborn.map((s) => s.waitExit()),
        this.config.limits.shutdownGraceMs,
      );
    }

    await shutdownSent;
    for (const c of this.clients) c.close();
    await waitAll(
      [...this.clients].map(
        (c) =>
          new Promise<void>((resolve) => {
            const check = setInterval(() => {
              if (c.isClosed) {
                clearInterval(check);
                resolve();
              }
            }, 10);
            check.unref();
          }),
      ),
      CLOSE_FLUSH_MS,
    );
    for (const c of this.clients) c.destroy();
    await transportsClosed;
    for (const path of [this.config.paths.socket, this.config.paths.wsSocket])
      removeSocketFile(path);
    // Exit records of the sessions just ended, then everything queued, reach the disk.
    await waitAll([...this.pendingExits], EXIT_RECORD_WAIT_MS);
    for (const s of this.sessions.all()) s.dispose();
    // Any session that outlived the shutdown's SIGKILL is the reaper's now.
    this.reaper.dispose();
    this.spawner.dispose();
    await this.history?.close();
    this.log.info('stopped');
    this.log.flush?.();
    this.options.onStopped?.();
  }
}

/** Creates the socket directory (0700). The default directory is ours: its mode is enforced. */
function prepareSocketDir(config: BrokerConfig): void {
  const dir = config.paths.dir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`socket directory ${dir} is not a directory`);
  if (!config.explicitSocket) {
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new Error(
        `socket directory ${dir} belongs to another user (uid ${st.uid}); refusing to use it`,
      );
    }
    if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  }
}

/**
 * The state folder (log, history, the web view's token): refused when it is not the user's own
 * (NotOwnError stops the start, as another user's runtime folder does). One that cannot be made
 * (a read-only home) is left to the log and the history, which say so and run without.
 */
function prepareStateDir(env: Record<string, string | undefined>): void {
  try {
    ownFolder(stateDir(env), 'the state folder');
  } catch (err) {
    if (err instanceof NotOwnError) throw err;
  }
}

/** The web view's token from its file; none (null) when the file is absent or empty. */
function readWsToken(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function removeSocketFile(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Already gone (net.Server removes its own file on close).
  }
}

/** Resolves when all promises settled or after `ms`, whichever is first. */
function waitAll(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void Promise.allSettled(promises).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Starts a broker in this process (the daemon's entry and in-process tests). */
export function startBroker(options: BrokerOptions = {}): Promise<Broker> {
  return Broker.start(options);
}
