import { resolveSocketPaths, type Role } from '@clippy/protocol';
import { ClippyClient, HANDSHAKE_TIMEOUT_MS } from './client.js';
import {
  DAEMON_POLL_INITIAL_MS,
  DAEMON_POLL_MAX_MS,
  DAEMON_EXIT_ALREADY_RUNNING,
  DAEMON_START_TIMEOUT_MS,
  sleep,
  startDaemonProcess,
} from './autostart.js';
import { DaemonNotRunningError, DaemonStartError } from './errors.js';
import { openUnixTransport, openWebSocketTransport, type Transport } from './transport.js';

export interface ConnectOptions {
  /** Explicit socket path (the `--socket` flag); otherwise CLIPPY_SOCKET, then $XDG_RUNTIME_DIR/clippy/broker.sock. */
  socket?: string;
  /** Environment used to resolve paths and given to a started daemon. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** `unix` (frames on the main socket, default) or `ws` (WebSocket on the socket beside it). */
  transport?: 'unix' | 'ws';
  role?: Role;
  /** Start the daemon when nothing answers: give the path of `clippyd.js`. */
  autoStart?: { daemonPath: string; timeoutMs?: number; args?: string[] };
}

export interface ConnectResult {
  client: ClippyClient;
  /** PID of a daemon this call started, if it did. */
  startedPid?: number;
}

/** Errors that mean "no daemon listens there" rather than "something is broken". */
function isNotRunning(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

async function openAndHandshake(
  socketPath: string,
  transport: 'unix' | 'ws',
  role: Role,
  handshakeMs?: number,
): Promise<ClippyClient> {
  const t: Transport =
    transport === 'ws'
      ? await openWebSocketTransport(socketPath)
      : await openUnixTransport(socketPath);
  return ClippyClient.handshake(t, role, handshakeMs);
}

/**
 * Connects and performs the handshake. When nothing listens and `autoStart` is given, starts
 * the daemon and waits (polling with backoff) until its socket answers `hello`.
 * Throws NoRuntimeDirError without XDG_RUNTIME_DIR and an explicit socket,
 * DaemonNotRunningError without autoStart, DaemonStartError when starting failed.
 */
export async function connectDetailed(opts: ConnectOptions = {}): Promise<ConnectResult> {
  const env = opts.env ?? process.env;
  const paths = resolveSocketPaths(env, opts.socket);
  const transport = opts.transport ?? 'unix';
  const socketPath = transport === 'ws' ? paths.wsSocket : paths.socket;
  const role = opts.role ?? 'client';
  try {
    return { client: await openAndHandshake(socketPath, transport, role) };
  } catch (err) {
    if (!isNotRunning(err)) throw err;
    if (!opts.autoStart) throw new DaemonNotRunningError(socketPath, err as Error);
  }
  const started = startDaemonProcess({
    daemonPath: opts.autoStart.daemonPath,
    ...(opts.socket ? { socket: opts.socket } : {}),
    env,
    ...(opts.autoStart.args ? { args: opts.autoStart.args } : {}),
  });
  const limit = opts.autoStart.timeoutMs ?? DAEMON_START_TIMEOUT_MS;
  const deadline = Date.now() + limit;
  let pause = DAEMON_POLL_INITIAL_MS;
  let lastError: unknown;
  try {
    for (;;) {
      try {
        // The daemon this call started answers `hello` once it has read its history, which
        // may first wait for another daemon's lock (5 s by default): the start's deadline
        // bounds that answer, not the usual handshake's.
        const client = await openAndHandshake(
          socketPath,
          transport,
          role,
          Math.max(HANDSHAKE_TIMEOUT_MS, deadline - Date.now()),
        );
        return { client, startedPid: started.pid };
      } catch (err) {
        if (!isNotRunning(err)) throw err;
        lastError = err;
      }
      const exit = started.exited();
      // Exit 0, or a race lost to another daemon starting at the same time, still leaves a
      // live broker to find: keep polling then.
      if (exit && exit.code !== 0 && exit.code !== DAEMON_EXIT_ALREADY_RUNNING) {
        // Its own words when it said why (they start with `clippyd: `).
        const said = started
          .said()
          .split('\n')
          .at(-1)
          ?.replace(/^clippyd: /u, '');
        throw new DaemonStartError(
          `the clippy daemon (${opts.autoStart.daemonPath}) exited at start-up with ` +
            `${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`}` +
            (said ? `: ${said}` : '; run `clippy daemon start --foreground` to see why'),
          exit.code ?? undefined,
        );
      }
      if (Date.now() >= deadline) {
        throw new DaemonStartError(
          `started the clippy daemon (pid ${started.pid}) but ${socketPath} did not answer within ${limit} ms` +
            (lastError ? ` (last error: ${(lastError as Error).message})` : ''),
        );
      }
      await sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
      pause = Math.min(pause * 2, DAEMON_POLL_MAX_MS);
    }
  } finally {
    started.release();
  }
}

/** Connects (see connectDetailed) and returns just the client. */
export async function connect(opts: ConnectOptions = {}): Promise<ClippyClient> {
  return (await connectDetailed(opts)).client;
}
