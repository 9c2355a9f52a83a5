import { parseTurnId } from '@clippy/protocol';
import type { StoredTurn } from '../turn-ring/turn-ring.js';
import type { Session } from '../sessions/session.js';
import { storedTurn } from './stored-turn.js';
import type { TurnStore } from './turn-store.js';

/**
 * A persisted session's turn by seq from the history (for turns evicted from its ring), or
 * undefined when the history does not hold it.
 */
export async function historyTurn(
  history: TurnStore | null,
  session: Session | undefined,
  ref: string,
): Promise<StoredTurn | undefined> {
  const id = parseTurnId(ref);
  if (!history || !session?.persisted || !id) return undefined;
  const ref_ = history.session(session.id)?.turns.find((t) => t.meta.seq === id.seq);
  if (!ref_) return undefined;
  return storedTurn(await history.readTurn(ref_));
}
