import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveSocketPaths, type SocketPaths } from '@clippy/protocol';
import { DEFAULT_FLOW_LIMITS, type FlowLimits } from './flow-control.js';
import { KILL_GRACE_MS, SHUTDOWN_GRACE_MS } from './constants.js';
import type { Logger } from './log.js';

export interface BrokerLimits extends FlowLimits {
  killGraceMs: number;
  shutdownGraceMs: number;
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
  limits: BrokerLimits;
}

/** Where the log goes: $XDG_STATE_HOME/clippy/clippyd.log, else ~/.local/state/clippy/clippyd.log. */
export function defaultLogFile(env: Record<string, string | undefined>): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'clippy', 'clippyd.log');
}

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
    limits: {
      ...DEFAULT_FLOW_LIMITS,
      killGraceMs: KILL_GRACE_MS,
      shutdownGraceMs: SHUTDOWN_GRACE_MS,
      ...options.limits,
    },
  };
}
