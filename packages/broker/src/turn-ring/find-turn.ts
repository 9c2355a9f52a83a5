import { parseTurnId } from '@clippy/protocol';
import { HandlerError } from '../errors.js';
import type { SessionTable } from '../sessions/session-table.js';
import type { StoredTurn } from './turn-ring.js';

/** A stored turn by reference: a turn ID (`<session>:<seq>`, session by ID or name), else a session's latest. */
export function findTurn(sessions: Pick<SessionTable, 'resolve'>, ref: string): StoredTurn {
  const asId = parseTurnId(ref);
  if (asId) {
    const session = sessions.resolve(asId.session);
    const turn = session?.turns?.ring.get(asId.seq);
    if (turn) return turn;
    if (!session && !sessions.resolve(ref)) {
      throw new HandlerError(
        'turn_not_found',
        `no stored turn has the ID '${ref}' (no session '${asId.session}')`,
      );
    }
    if (session)
      throw new HandlerError(
        'turn_not_found',
        `no stored turn has the ID '${ref}' (never existed, or evicted)`,
      );
  }
  const session = sessions.resolve(ref);
  if (!session)
    throw new HandlerError('session_not_found', `no session has the ID or name '${ref}'`);
  const latest = session.turns?.ring.latest();
  if (!latest)
    throw new HandlerError('no_turn', `session '${session.name}' has no completed turn yet`);
  return latest;
}
