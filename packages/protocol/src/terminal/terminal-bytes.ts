import { ModeTracker } from './modes.js';

/** Clears the screen before the replay paints it again. */
export const CLEAR_SCREEN = '\x1b[H\x1b[2J';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

/** Hides nothing the program chose to hide: only re-shows the cursor if the replay did not hide it on purpose. */
export function cursorAfterReplay(replay: Uint8Array): string {
  const buf = Buffer.isBuffer(replay)
    ? replay
    : Buffer.from(replay.buffer, replay.byteOffset, replay.byteLength);
  const hide = buf.lastIndexOf(HIDE_CURSOR);
  const show = buf.lastIndexOf(SHOW_CURSOR);
  return hide > show ? '' : SHOW_CURSOR;
}

/**
 * The bytes that give the user's terminal back: whatever modes the session's output left on are
 * turned off, and with `moveBelow` the cursor then goes to a fresh line below the session's
 * screen (the bottom row of a terminal `rows` high, then one line more), as tmux's detach does:
 * what comes next (a notice, the shell's prompt) lands under the app's footer instead of over
 * its input line. A main-screen TUI leaves its cursor anywhere and nobody here keeps a screen
 * model of the terminal, so "below" is the bottom row, then one line more.
 */
export function terminalRestoreBytes(
  modes: ModeTracker,
  opts: { rows: number; moveBelow: boolean },
): string {
  const rows = opts.rows > 0 ? opts.rows : 1;
  return modes.restoreSequence() + (opts.moveBelow ? `\x1b[${rows};1H\r\n` : '');
}

/**
 * Modes that may be on when nobody knows which are (the daemon wrote the session's output
 * straight into the terminal, then died): restoring them all is harmless when they are off.
 */
const EVERY_TRACKED_MODE_ON = '\x1b[?1049h\x1b[?1h';

/** A restore for a terminal whose modes are unknown: everything a session may turn on, off. */
export function blindRestoreBytes(opts: { rows: number; moveBelow: boolean }): string {
  const modes = new ModeTracker();
  modes.feed(Buffer.from(EVERY_TRACKED_MODE_ON));
  return terminalRestoreBytes(modes, opts);
}
