import type { StoredTurn } from '../turn-ring/turn-ring.js';

/** What the global relay buffer holds: which turn, and a copy of it. */
export interface RelayEntry {
  turnId: string;
  text: string;
  content: Buffer;
}

/**
 * The relay buffer's entry for a captured turn: its own copy, so eviction from the ring or
 * removal of the session never changes it; only the next capture does.
 */
export function relayEntryOf(turn: StoredTurn): RelayEntry {
  return { turnId: turn.turn_id, text: turn.text, content: Buffer.from(turn.content) };
}
