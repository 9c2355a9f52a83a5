import { HandlerError } from '../../errors.js';
import { RemoteSource } from './remote-source.js';
import type { RouteTurn } from './route.js';

// The remote part of a route whose source is a session on another machine (`clippy route add
// build:codex claude`): the link to that machine's daemon (remote-source.ts), wired to the leg.

/** Where the other daemon is: a local socket reaching it (an SSH forwarding) and the machine's name. */
export interface RemoteEnd {
  socket: string;
  host: string;
}

export interface RemoteWiring {
  /** A turn of the source. */
  turn(turn: RouteTurn): void;
  /** The source exited there, or the link broke: the leg ends, saying why. */
  end(reason: string): void;
}

/**
 * Follows the leg's source `session` on the daemon behind `remote`; throws `session_not_found`
 * saying why when it cannot (no such session there, the daemon does not answer).
 */
export async function followRemote(
  session: string,
  remote: RemoteEnd,
  wiring: RemoteWiring,
): Promise<RemoteSource> {
  const label = `${remote.host}:${session}`;
  try {
    return await RemoteSource.open(remote.socket, session, {
      turn: (turn) => wiring.turn(turn),
      exited: () => wiring.end(`source '${label}' exited`),
      lost: (reason) => wiring.end(`lost the link to ${remote.host}: ${reason}`),
    });
  } catch (err) {
    throw new HandlerError(
      'session_not_found',
      `cannot follow '${session}' on ${remote.host}: ${(err as Error).message}`,
    );
  }
}
