import { HandlerError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { RemoteSource } from './remote-source.js';
import type { Leg, RouteTurn } from './records.js';

// The remote part of a route whose source is a session on another machine (`clippy route add
// build:codex claude`): the link to that machine's daemon (remote-source.ts), wired to the leg.

/** Where the other daemon is: a local socket reaching it (an SSH forwarding) and the machine's name. */
export interface RemoteEnd {
  socket: string;
  host: string;
}

export interface RemoteWiring {
  /** A turn of the source, with the automatic injections behind it (counted on its machine). */
  turn(turn: RouteTurn, hops: number): void;
  /** The source exited there, or the link broke: the leg ends, saying why. */
  end(reason: string): void;
  log: Logger;
}

/**
 * Follows the leg's source `session` on the daemon behind `remote`; throws `session_not_found`
 * saying why when it cannot (no such session there, the daemon does not answer).
 */
export async function followRemote(
  leg: Leg,
  session: string,
  remote: RemoteEnd,
  wiring: RemoteWiring,
): Promise<RemoteSource> {
  const label = `${remote.host}:${session}`;
  let warned = false;
  try {
    return await RemoteSource.open(remote.socket, session, remote.host, {
      turn: (turn, hops) => {
        // An older clippy there announces no hop count: its turns start a chain here, as
        // before hop counts travelled, and the log says what that costs (once per route).
        if (hops === null && !warned) {
          warned = true;
          wiring.log.warn(
            { route: leg.name, host: remote.host },
            `turns from ${remote.host} carry no hop count (its clippy is older): route ${leg.name} counts each as a new chain, so its hop limit cannot end a cycle of routes through ${remote.host}`,
          );
        }
        wiring.turn(turn, hops ?? 0);
      },
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
