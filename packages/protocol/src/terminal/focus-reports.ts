/** Turns on the terminal's focus reports (xterm private mode 1004): `ESC [ I` in, `ESC [ O` out. */
export const FOCUS_REPORTS_ON = '\x1b[?1004h';

const ESC = 0x1b;
const FOCUS_IN = Buffer.from('\x1b[I');
const FOCUS_OUT = Buffer.from('\x1b[O');
const REPORT_LENGTH = 3;

/** What a chunk of keystrokes held: the bytes left for the program, and the focus changes in order. */
export interface FocusSplit {
  data: Buffer;
  /** true: focus in; false: focus out. */
  changes: boolean[];
}

/**
 * Takes the terminal's focus reports out of a chunk of input. Returns null (nothing allocated)
 * for the usual chunk without them: a keystroke without ESC is one memchr away from the PTY.
 * Terminals write a report in one piece, so one cut by a chunk boundary is not looked for
 * (holding back a lone ESC would delay the Escape key).
 */
export function splitFocusReports(chunk: Buffer): FocusSplit | null {
  let at = chunk.indexOf(ESC);
  if (at < 0) return null;
  let changes: boolean[] | null = null;
  const kept: Buffer[] = [];
  let from = 0;
  while (at >= 0 && at + REPORT_LENGTH <= chunk.length) {
    const isIn = chunk[at + 1] === FOCUS_IN[1] && chunk[at + 2] === FOCUS_IN[2];
    const isOut = chunk[at + 1] === FOCUS_OUT[1] && chunk[at + 2] === FOCUS_OUT[2];
    if (isIn || isOut) {
      (changes ??= []).push(isIn);
      if (at > from) kept.push(chunk.subarray(from, at));
      from = at + REPORT_LENGTH;
      at = chunk.indexOf(ESC, from);
    } else {
      at = chunk.indexOf(ESC, at + 1);
    }
  }
  if (!changes) return null;
  if (from < chunk.length) kept.push(chunk.subarray(from));
  return { data: kept.length === 1 ? kept[0]! : Buffer.concat(kept), changes };
}
