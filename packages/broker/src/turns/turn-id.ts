/** A parsed turn ID: the session part (ID or name) and the sequence number. */
export interface TurnRef {
  session: string;
  seq: number;
}

/** `<session>:<seq>`: the ID every stored turn gets. */
export function formatTurnId(sessionId: string, seq: number): string {
  return `${sessionId}:${seq}`;
}

/**
 * Parses `<session>:<seq>` (the session part may be the session's name, e.g. `claude:3`).
 * The last colon splits, so a name containing colons still works. Returns null when the
 * text is not a turn ID (then it may be a plain session reference).
 */
export function parseTurnId(text: string): TurnRef | null {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return null;
  const digits = text.slice(colon + 1);
  if (!/^[1-9][0-9]{0,15}$/.test(digits)) return null;
  return { session: text.slice(0, colon), seq: Number(digits) };
}
