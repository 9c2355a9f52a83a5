import { chmodSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { STALE_PROBE_TIMEOUT_MS } from '../constants.js';

/** Another broker answers on the socket: this one must not start. */
export class AlreadyRunningError extends Error {
  constructor(readonly socketPath: string) {
    super(`broker already running (socket ${socketPath} accepts connections)`);
    this.name = 'AlreadyRunningError';
  }
}

function listenOnce(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // The socket file is created by bind(); a umask of 0177 makes it 0600 from its first
    // instant, so no other user can connect in the gap before the chmod below.
    let previous: number | null = null;
    try {
      previous = process.umask(0o177);
    } catch {
      // Worker threads may not change the umask; the chmod after listening still applies.
    }
    try {
      server.listen(path);
    } finally {
      if (previous !== null) process.umask(previous);
    }
  });
}

/** Whether something accepts connections on the socket (a live broker). */
function probe(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (alive: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(alive);
    };
    // A live broker that is too busy to accept within the timeout still counts as live.
    const timer = setTimeout(() => done(true), STALE_PROBE_TIMEOUT_MS);
    socket.once('connect', () => done(true));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done(err.code !== 'ECONNREFUSED' && err.code !== 'ENOENT' ? true : false),
    );
  });
}

/**
 * Listens on a Unix socket path with mode 0600. When the path is taken, probes it: a live
 * listener means another broker (AlreadyRunningError); a refused connection means a stale
 * file left by a killed broker, which is removed and bound again.
 */
export async function listenUnix(server: Server, path: string): Promise<void> {
  try {
    await listenOnce(server, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    if (await probe(path)) throw new AlreadyRunningError(path);
    try {
      unlinkSync(path);
    } catch (unlinkErr) {
      if ((unlinkErr as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkErr;
    }
    await listenOnce(server, path);
  }
  chmodSync(path, 0o600);
}
