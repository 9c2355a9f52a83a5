/**
 * Where the broker's sockets live, computed from the environment only (no file system access:
 * this package never touches it). Shared by the broker, the client and the CLI so that they
 * always agree.
 */
export interface SocketPaths {
  dir: string;
  socket: string;
  wsSocket: string;
}

export const SOCKET_DIR_NAME = 'clippy';
export const SOCKET_FILE_NAME = 'broker.sock';
export const WS_SOCKET_FILE_NAME = 'ws.sock';

/** Thrown when no socket path can be chosen: XDG_RUNTIME_DIR unset and no explicit path. */
export class NoRuntimeDirError extends Error {
  constructor() {
    super(
      'XDG_RUNTIME_DIR is not set, so clippy has no private place for its socket. ' +
        'Set XDG_RUNTIME_DIR (e.g. to /run/user/$(id -u)), or give a socket path with --socket or CLIPPY_SOCKET.',
    );
    this.name = 'NoRuntimeDirError';
  }
}

/**
 * Resolves the socket paths: an explicit path (flag, then CLIPPY_SOCKET) wins; otherwise
 * `$XDG_RUNTIME_DIR/clippy/broker.sock`. The WebSocket socket sits beside the main one.
 */
export function resolveSocketPaths(
  env: Record<string, string | undefined>,
  explicit?: string,
): SocketPaths {
  const chosen = explicit || env.CLIPPY_SOCKET;
  if (chosen) {
    const slash = chosen.lastIndexOf('/');
    const dir = slash > 0 ? chosen.slice(0, slash) : '.';
    // Derived from the socket's own name so two brokers sharing a directory never collide.
    const wsSocket = chosen.endsWith('.sock') ? `${chosen.slice(0, -5)}.ws.sock` : `${chosen}.ws`;
    return { dir, socket: chosen, wsSocket };
  }
  const runtime = env.XDG_RUNTIME_DIR;
  if (!runtime) throw new NoRuntimeDirError();
  const dir = `${runtime.replace(/\/+$/, '')}/${SOCKET_DIR_NAME}`;
  return { dir, socket: `${dir}/${SOCKET_FILE_NAME}`, wsSocket: `${dir}/${WS_SOCKET_FILE_NAME}` };
}

export const CONFIG_DIR_NAME = 'clippy';
export const CONFIG_FILE_NAME = 'config.json';
export const PRESETS_FILE_NAME = 'presets.json';

/** `$XDG_CONFIG_HOME/clippy` (default `$HOME/.config/clippy`; `home` when HOME is unset). */
export function configDir(env: Record<string, string | undefined>, home: string): string {
  const base = env.XDG_CONFIG_HOME || `${(env.HOME || home).replace(/\/+$/, '')}/.config`;
  return `${base.replace(/\/+$/, '')}/${CONFIG_DIR_NAME}`;
}
