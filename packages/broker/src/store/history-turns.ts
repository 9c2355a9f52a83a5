import type { Session } from '../sessions/session.js';
import type { StoredTurn } from '../turn-ring/turn-ring.js';
import { storedTurn } from './stored-turn.js';
import type { TurnStore } from './turn-store.js';

/**
 * A session's newest `last` turns, oldest first: from the history for a persisted session (all
 * it kept, not only the ring's), with turns the ring holds beyond it (written while the history
 * was paused); from the ring otherwise.
 */
export async function sessionTurns(
  session: Session,
  history: TurnStore | null,
  last = Infinity,
): Promise<StoredTurn[]> {
  const ring = session.turns?.ring;
  const inRing: StoredTurn[] = [];
  if (ring) {
    for (const meta of ring.list().reverse()) {
      const t = ring.get(meta.seq);
      if (t) inRing.push(t);
    }
  }
  const persisted = session.persisted ? history?.session(session.id) : undefined;
  if (!persisted) return inRing.slice(-last);
  const bySeq = new Map<number, StoredTurn>();
  for (const t of inRing) bySeq.set(t.seq, t);
  const seqs = new Set<number>([...persisted.turns.map((r) => r.meta.seq), ...bySeq.keys()]);
  const wanted = [...seqs].sort((a, b) => a - b).slice(-last);
  const refs = new Map(persisted.turns.map((r) => [r.meta.seq, r]));
  const out: StoredTurn[] = [];
  for (const seq of wanted) {
    const inMemory = bySeq.get(seq);
    if (inMemory) {
      out.push(inMemory);
      continue;
    }
    out.push(storedTurn(await history!.readTurn(refs.get(seq)!)));
  }
  return out;
}
