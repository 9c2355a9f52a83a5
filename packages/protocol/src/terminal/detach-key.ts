/**
 * The key that detaches an attached terminal. Default Ctrl-] (telnet's escape, also in
 * docker's detach sequence): agents and shells do not use it, unlike Ctrl-\ (SIGQUIT),
 * Ctrl-B (tmux, readline) or Ctrl-C.
 */
export const DEFAULT_DETACH_KEY = 'ctrl-]';

/** Control keys that must keep reaching the program: refusing them avoids trapping the user. */
const FORBIDDEN = new Map<number, string>([
  [0x02, 'Ctrl-B is readline/tmux "back"'],
  [0x03, 'Ctrl-C must interrupt the program'],
  [0x0d, 'Ctrl-M is Enter'],
  [0x09, 'Ctrl-I is Tab'],
  [0x1b, 'Ctrl-[ is Escape'],
]);

export interface DetachKey {
  /** As the user should type it, e.g. `Ctrl-]`. */
  label: string;
  /** The byte a terminal sends for it in its default mode. */
  byte: number;
  /**
   * Other encodings of the same key: when the program enabled the kitty keyboard protocol
   * (`CSI <code>;5u`) or xterm's modifyOtherKeys (`CSI 27;5;<code>~`), the terminal no longer
   * sends the control byte.
   */
  sequences: Buffer[];
}

/**
 * Parses `ctrl-]`, `C-]`, `^]`, `ctrl+x` (any case) into the control byte it sends.
 * Throws a message naming what is wrong.
 */
export function parseDetachKey(spec: string): DetachKey {
  const s = spec.trim();
  const m = /^(?:ctrl[-+]|c-|\^)(.)$/i.exec(s);
  if (!m) {
    throw new Error(
      `detach key '${spec}' is not a control key: write it as ctrl-<key>, e.g. ctrl-] or ctrl-q`,
    );
  }
  const ch = m[1]!;
  const upper = ch.toUpperCase();
  const code = upper.charCodeAt(0);
  if (code < 0x40 || code > 0x5f) {
    throw new Error(
      `detach key '${spec}': Ctrl-${ch} sends no control character; use a letter or one of @ [ \\ ] ^ _`,
    );
  }
  const byte = code - 0x40;
  const why = FORBIDDEN.get(byte);
  if (why) throw new Error(`detach key '${spec}' is not allowed: ${why}`);
  // The key's own code point as kitty/modifyOtherKeys report it (letters in lower case).
  const keyCode = /[A-Z]/.test(upper) ? upper.toLowerCase().charCodeAt(0) : code;
  return {
    label: `Ctrl-${upper}`,
    byte,
    sequences: [Buffer.from(`\x1b[${keyCode};5u`), Buffer.from(`\x1b[27;5;${keyCode}~`)],
  };
}

/**
 * Every byte string a terminal may send for the key: its control byte, then its other
 * encodings. This is what a scanner looks for, and what an attach request carries so that the
 * daemon can see the key in a terminal it reads itself.
 */
export function detachKeyEncodings(key: DetachKey): Buffer[] {
  return [Buffer.from([key.byte]), ...key.sequences];
}

/** Where the first of `encodings` starts in a chunk of input and how long it is, or null. */
export function findDetachKey(
  chunk: Uint8Array,
  encodings: readonly Uint8Array[],
): { index: number; length: number } | null {
  const buf = Buffer.isBuffer(chunk)
    ? chunk
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let best: { index: number; length: number } | null = null;
  for (const seq of encodings) {
    if (seq.length === 0) continue;
    // One byte: indexOf of a number is a plain memchr, no search object.
    const i = seq.length === 1 ? buf.indexOf(seq[0]!) : buf.indexOf(seq);
    if (i >= 0 && (!best || i < best.index)) best = { index: i, length: seq.length };
  }
  return best;
}
