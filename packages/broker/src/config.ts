import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveSocketPaths, type SocketPaths } from '@clippy/protocol';
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from './flow-control.js';
import {
  FRAME_TIMEOUT_MS,
  HELLO_TIMEOUT_MS,
  KILL_GRACE_MS,
  PARTIAL_FRAMES_LIMIT,
  PENDING_HELLO_LIMIT,
  REQUESTS_PER_TURN,
  SHUTDOWN_GRACE_MS,
  WEB_PENDING_LIMIT,
  WEB_PENDING_TIMEOUT_MS,
} from './constants.js';
import type { Logger } from './log.js';

export interface BrokerLimits extends FlowLimits {
  killGraceMs: number;
  shutdownGraceMs: number;
  helloTimeoutMs: number;
  frameTimeoutMs: number;
  partialFramesLimit: number;
  requestsPerTurn: number;
  /** Connections on each Unix socket that have not said hello. */
  pendingHelloLimit: number;
  /** Connections to the web view's port that have not shown the token, and how long each may wait. */
  webPendingLimit: number;
  webPendingTimeoutMs: number;
}

export interface BrokerOptions {
  /** Explicit socket path (`--socket`); otherwise CLIPPY_SOCKET, then $XDG_RUNTIME_DIR/clippy/broker.sock. */
  socket?: string;
  /** Environment to read XDG_* and CLIPPY_SOCKET from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Log to stderr instead of the log file. */
  foreground?: boolean;
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  logLevel?: string;
  /** A ready logger (tests); wins over foreground/logLevel. */
  logger?: Logger;
  /** Whether to listen on the WebSocket socket too (default true). */
  websocket?: boolean;
  /**
   * The token a WebSocket upgrade that carries an Origin (a browser's) must present; otherwise
   * read from `<socket dir>/ws-token` at each such upgrade. None: every Origin is refused.
   */
  wsToken?: string;
  /** Overrides of the limits in constants.ts (tests use small values). */
  limits?: Partial<BrokerLimits>;
  /** Called once the broker has stopped because of a `shutdown` request or a signal. */
  onStopped?: () => void;
}

export interface BrokerConfig {
  paths: SocketPaths;
  /** Whether the socket path came from the flag/CLIPPY_SOCKET (its directory is not ours to chmod). */
  explicitSocket: boolean;
  logFile: string | null;
  foreground: boolean;
  logLevel: string;
  websocket: boolean;
  /** An explicit WebSocket token (option), else null: the token file is read instead. */
  wsToken: string | null;
  /** Where the WebSocket token is read from when no option gives one. */
  wsTokenFile: string;
  /** Where the web view's token is kept across restarts (0600; `clippy web --rotate` renews it). */
  webTokenFile: string;
  /** Where the web view's port is remembered, with whether it runs (state directory). */
  webPortFile: string;
  limits: BrokerLimits;
}

/** The WebSocket token's file in the socket directory (0700): whoever can read it may connect a browser. */
export const WS_TOKEN_FILE_NAME = 'ws-token';

/** clippy's state directory: $XDG_STATE_HOME/clippy, else ~/.local/state/clippy. */
export function stateDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'clippy');
}

/** Where the log goes: $XDG_STATE_HOME/clippy/clippyd.log, else ~/.local/state/clippy/clippyd.log. */
export function defaultLogFile(env: Record<string, string | undefined>): string {
  return join(stateDir(env), 'clippyd.log');
}

/** The web view's token file (beside the log, in the user's own state directory). */
export const WEB_TOKEN_FILE_NAME = 'web-token';
/** The web view's remembered port (beside its token). */
export const WEB_PORT_FILE_NAME = 'web-port';

/** Resolves options into a config. Throws NoRuntimeDirError when no socket path can be chosen. */
export function resolveConfig(options: BrokerOptions): BrokerConfig {
  const env = options.env ?? process.env;
  const paths = resolveSocketPaths(env, options.socket);
  const foreground = options.foreground ?? false;
  return {
    paths,
    explicitSocket: Boolean(options.socket || env.CLIPPY_SOCKET),
    logFile: foreground || options.logger ? null : defaultLogFile(env),
    foreground,
    logLevel: options.logLevel ?? 'info',
    websocket: options.websocket ?? true,
    wsToken: options.wsToken ?? null,
    wsTokenFile: join(paths.dir, WS_TOKEN_FILE_NAME),
    webTokenFile: join(stateDir(env), WEB_TOKEN_FILE_NAME),
    webPortFile: join(stateDir(env), WEB_PORT_FILE_NAME),
    limits: {
      ...DEFAULT_FLOW_LIMITS,
      killGraceMs: KILL_GRACE_MS,
      shutdownGraceMs: SHUTDOWN_GRACE_MS,
      helloTimeoutMs: HELLO_TIMEOUT_MS,
      frameTimeoutMs: FRAME_TIMEOUT_MS,
      partialFramesLimit: PARTIAL_FRAMES_LIMIT,
      requestsPerTurn: REQUESTS_PER_TURN,
      pendingHelloLimit: PENDING_HELLO_LIMIT,
      webPendingLimit: WEB_PENDING_LIMIT,
      webPendingTimeoutMs: WEB_PENDING_TIMEOUT_MS,
      ...options.limits,
    },
  };
}
