/**
 * The turn-ID format `<session>:<seq>`, written once: the broker formats the IDs it stores,
 * the schemas check the IDs clients send, clients tell a turn ID from a session reference.
 */

/** A parsed turn ID: the session part (ID or name) and the sequence number. */
export interface TurnRef {
  session: string;
  seq: number;
}

/** Sequence digits: no leading zero, at most 16 (exact in a double). Position 0 is `0`. */
const SEQ_DIGITS = /^(?:0|[1-9][0-9]{0,15})$/;

/** `<session>:<seq>`: the ID every stored turn gets. */
export function formatTurnId(sessionId: string, seq: number): string {
  return `${sessionId}:${seq}`;
}

/**
 * Parses `<session>:<seq>` with seq ≥ 0 (0 is the position before a session's first turn).
 * The session part may be the session's name (`claude:3`); the last colon splits, so a name
 * containing colons still works. Null when the text is not of that form.
 */
export function parseTurnPosition(text: string): TurnRef | null {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return null;
  const digits = text.slice(colon + 1);
  if (!SEQ_DIGITS.test(digits)) return null;
  return { session: text.slice(0, colon), seq: Number(digits) };
}

/**
 * Parses a turn ID `<session>:<seq>` (seq ≥ 1). Returns null when the text is not a turn ID
 * (then it may be a plain session reference).
 */
export function parseTurnId(text: string): TurnRef | null {
  const ref = parseTurnPosition(text);
  return ref && ref.seq >= 1 ? ref : null;
}
