import type { WebPort } from '../web/web-host.js';
import type { EventName, Request, Result, ResultType, Role } from '@clippy/protocol';
import type { Preset } from '@clippy/turns';
import type { Logger } from '../log.js';
import type { Session, SessionClient, SessionParams } from '../sessions/session.js';
import type { RemovedBy } from '../sessions/session-table.js';
import type { TurnConfig } from '../turn-config/turn-config.js';
import type { RelayEntry } from '../relay/relay-buffer.js';
import type { FocusState } from '../focus/focus-state.js';
import type { Notifier } from '../notify/notifier.js';
import type { RouteEngine } from '../relay/routes/route-engine.js';
import { HandlerError } from '../errors.js';
import type { TurnStore } from '../store/turn-store.js';
import type { Worktrees } from '../worktrees/worktrees.js';
import type { AgentChannel } from '../agents/types.js';
import type { PtyProcess, PtySpawnOptions } from '@clippy/system/pty';

// Handlers and the code they call throw the same expected-failure class.
export { HandlerError };

/** Which events a connection asked for (null: all), and about which sessions (null: all). */
export interface Subscription {
  events: Set<EventName> | null;
  sessions: string[] | null;
}

/** What a handler gives to create a session; the broker adds its limits and itself as observer. */
export type NewSessionParams = Omit<
  SessionParams,
  'id' | 'flowLimits' | 'killGraceMs' | 'observer' | 'turns'
> & {
  id?: string;
  /**
   * How its turns are found: the preset (null: its wrapper publishes them), the settings, and
   * the agent's own channel when one is wired.
   */
  turns: { preset: Preset | null; config: TurnConfig; channel?: AgentChannel | null };
};

// The ports below are what handlers may reach of the broker: narrow interfaces, so handlers
// depend on neither the Broker class nor the connection class (and neither imports them back).

/** The session table: lookup, naming, and the only way sessions are made and removed. */
export interface SessionsPort {
  /** By ID, else by name (a live session, else the newest exited one). */
  resolve(ref: string): Session | undefined;
  all(): Session[];
  live(): Session[];
  readonly size: number;
  nameTaken(name: string): boolean;
  uniqueName(base: string): string;
  /** A fresh ID, for a session whose ID must be known before it is created (its environment). */
  newId(): string;
  /** Builds a session whole (with its turns), lists it, then announces it (`session_created`). */
  create(params: NewSessionParams): Session;
  /**
   * Removes an exited session: its attached clients are told, its screen is freed; `by` is
   * remembered for a while (`removed`).
   */
  remove(session: Session, by: RemovedBy): void;
  /** How a session no longer listed under this name or ID was removed, if it was lately. */
  removed(ref: string): { name: string; by: RemovedBy } | undefined;
  /**
   * Replaces an exited session by a new one under its ID (`revive`): its turns and their
   * numbering carry over, its history stays; announced as created.
   */
  revive(old: Session, params: Omit<NewSessionParams, 'id'>): Session;
  /** Ends a wrapper's session (its connection deregistered it or went away). */
  endWrapper(session: Session): void;
  /** The connection that registered a wrapper session, while it is connected. */
  wrapperOf(session: Session): SessionClient | undefined;
  /** Every attached client with the sessions it is attached to (oldest session first). */
  attachedClients(): Map<SessionClient, Session[]>;
}

/** The global relay buffer (clippy's): what the last capture or put_buffer stored. */
export interface RelayBufferPort {
  get(): RelayEntry | null;
  /** Replaces the entry: it survives pastes and lasts until the next capture or put_buffer. */
  set(entry: RelayEntry): void;
}

/** The daemon as a whole: its status and its end. */
export interface DaemonPort {
  readonly log: Logger;
  readonly packageVersion: string;
  readonly startedAt: number;
  readonly socketPath: string;
  readonly wsSocketPath: string | null;
  /** Null: the log goes to stderr (foreground) or to a logger given to startBroker. */
  readonly logFile: string | null;
  readonly clientCount: number;
  /** The web view's HTTP + WebSocket endpoint (started on request). */
  readonly web: WebPort;
  close(reason: string): Promise<void>;
  /** Starts a session's program on a new PTY (by the spawner: the daemon never forks itself). */
  spawnPty(options: PtySpawnOptions): Promise<PtyProcess>;
}

/** The connection that sent the request. Its attachments are recorded by the sessions alone. */
export interface Caller extends SessionClient {
  readonly role: Role | null;
  subscription: Subscription | null;
  /** Sessions this connection registered (role wrapper): they end when it disconnects. */
  readonly registered: Set<Session>;
  /** Cancels outstanding waits (wait_turn) when the connection goes away. */
  readonly cleanups: Set<() => void>;
}

/** What the broker gives every handler; the connection adds itself as `connection`. */
export interface BrokerPorts {
  readonly sessions: SessionsPort;
  /** The opt-in turn history; null when it could not be opened. */
  readonly history: TurnStore | null;
  /** Why the history could not be opened at start (null: it opened). */
  readonly historyUnavailable: string | null;
  readonly relayBuffer: RelayBufferPort;
  readonly daemon: DaemonPort;
  /** Which attached terminal has the user's focus, and the attach clients' process IDs. */
  readonly focus: FocusState;
  /** Notifications and unread turns (broker/src/notify). */
  readonly notify: Notifier;
  /** Routes, loops and fan-ins (docs/routes.md). */
  readonly routes: RouteEngine;
  /** `turn_progress` pushes: fed to the sessions some subscription asks them about. */
  readonly progress: { subscriptionsChanged(): void };
  /** Sessions' git worktrees and their diffs (docs/worktrees.md). */
  readonly worktrees: Worktrees;
}

export interface HandlerContext extends BrokerPorts {
  readonly connection: Caller;
  /** Runs `fn` right after the response was sent (e.g. attach: live output after the replay). */
  afterResponse(fn: () => void): void;
}

export type Handler<T extends ResultType> = (
  request: Request<T>,
  context: HandlerContext,
) => Result<T> | Promise<Result<T>>;

export type HandlerTable = { [T in ResultType]: Handler<T> };

/** The session a request names (ID or name), or a `session_not_found` answer. */
export function findSession(context: HandlerContext, ref: string): Session {
  const session = context.sessions.resolve(ref);
  if (!session)
    throw new HandlerError('session_not_found', `no session has the ID or name '${ref}'`);
  return session;
}

/** Like findSession, but the session must still be running. */
export function findLiveSession(context: HandlerContext, ref: string): Session {
  const session = findSession(context, ref);
  if (!session.live) {
    throw new HandlerError(
      'session_exited',
      `session '${session.name}' (${session.id}) has exited`,
    );
  }
  return session;
}
