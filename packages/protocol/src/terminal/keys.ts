/**
 * Named keys for `send` with `keys` (in tmux's spirit: `Down Down Enter`, `C-c`, `1`): what a
 * terminal sends for each. One table for every client (CLI, editors, web view). A name that is
 * not a key is typed as its characters, as `tmux send-keys` does. In terminal/: pure terminal
 * bytes, like the rest of this folder.
 */

/** Cursor keys send `ESC [ x` normally, `ESC O x` once the program enabled application mode (DECCKM). */
const CURSOR: Record<string, string> = {
  Up: 'A',
  Down: 'B',
  Right: 'C',
  Left: 'D',
  Home: 'H',
  End: 'F',
};

/** Keys that send the same bytes in every mode. Names are matched without regard to case. */
const FIXED: Record<string, string> = {
  Enter: '\r',
  Tab: '\t',
  BTab: '\x1b[Z',
  Space: ' ',
  Esc: '\x1b',
  Escape: '\x1b',
  BSpace: '\x7f',
  Backspace: '\x7f',
  Delete: '\x1b[3~',
  DC: '\x1b[3~',
  Insert: '\x1b[2~',
  IC: '\x1b[2~',
  PageUp: '\x1b[5~',
  PPage: '\x1b[5~',
  PageDown: '\x1b[6~',
  NPage: '\x1b[6~',
  F1: '\x1bOP',
  F2: '\x1bOQ',
  F3: '\x1bOR',
  F4: '\x1bOS',
  F5: '\x1b[15~',
  F6: '\x1b[17~',
  F7: '\x1b[18~',
  F8: '\x1b[19~',
  F9: '\x1b[20~',
  F10: '\x1b[21~',
  F11: '\x1b[23~',
  F12: '\x1b[24~',
};

const BY_LOWER = new Map<string, string>();
for (const [name, bytes] of Object.entries(FIXED)) BY_LOWER.set(name.toLowerCase(), bytes);
const CURSOR_BY_LOWER = new Map<string, string>();
for (const [name, final] of Object.entries(CURSOR)) CURSOR_BY_LOWER.set(name.toLowerCase(), final);

/** The key names `send --keys` knows (besides `C-x`, `M-x` and literal text). */
export const KEY_NAMES: readonly string[] = [...Object.keys(CURSOR), ...Object.keys(FIXED)];

/** What the terminal's input modes change about keys. */
export interface KeyModes {
  /** DECCKM (`ESC[?1h`): cursor keys send `ESC O x`. */
  applicationCursor: boolean;
}

/** `C-x`: the control character of x (`C-c` is 0x03, `C-[` is ESC, `C-?` is DEL); null if none. */
function control(ch: string): string | null {
  if (ch === '?') return '\x7f';
  if (ch === ' ' || ch === '@') return '\x00';
  const code = ch.toUpperCase().charCodeAt(0);
  if (ch.length !== 1 || code < 0x40 || code > 0x5f) return null;
  return String.fromCharCode(code - 0x40);
}

function encodeOne(key: string, modes: KeyModes): string {
  const lower = key.toLowerCase();
  const cursor = CURSOR_BY_LOWER.get(lower);
  if (cursor) return `\x1b${modes.applicationCursor ? 'O' : '['}${cursor}`;
  const fixed = BY_LOWER.get(lower);
  if (fixed !== undefined) return fixed;
  const mod = /^([CM])-(.+)$/i.exec(key);
  if (mod) {
    const [, which, rest] = mod as unknown as [string, string, string];
    if (which.toUpperCase() === 'M') return `\x1b${encodeOne(rest, modes)}`;
    const ctl = rest.length === 1 ? control(rest) : null;
    if (ctl === null)
      throw new KeyError(`'${key}' is not a key: C- takes one of @, A-Z, [, \\, ], ^, _, ?`);
    return ctl;
  }
  return key;
}

/** A key list that cannot be sent; `message` names the key. */
export class KeyError extends Error {}

/** The bytes a terminal sends for `keys`, in order. Throws KeyError for a malformed `C-` key. */
export function encodeKeys(keys: readonly string[], modes: KeyModes): string {
  return keys.map((k) => encodeOne(k, modes)).join('');
}
