import { CliError } from './errors.js';
import { TURN_EXIT } from './turn-exits.js';

// How the turn commands print a turn.

/** Writes a turn's text so the shell prompt starts on a fresh line. */
export function printText(text: string): void {
  process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
}

/**
 * Prints a completed turn's text (or JSON); an interrupted turn is said on stderr and exits
 * TURN_EXIT.interrupted, after what it printed (the partial answer is still the output).
 */
export function printTurn(
  turn: { text: string; interrupted: boolean; content?: unknown },
  json: boolean | undefined,
  session: string,
): void {
  if (json) {
    const { content: _content, ...rest } = turn;
    process.stdout.write(`${JSON.stringify(rest, null, 2)}\n`);
  } else printText(turn.text);
  if (turn.interrupted) {
    throw new CliError(
      `the turn in ${session} was interrupted (Ctrl-C or Esc) before it completed; what it printed is above`,
      TURN_EXIT.interrupted,
    );
  }
}

/**
 * A captured turn's size as a person sees it: the bytes of its text (what `paste` sends) and
 * of its raw content (ANSI included, `paste --raw`): `(65 bytes of text, 3721 raw)`. An older
 * daemon tells the raw size only.
 */
export function capturedSize(r: { size: number; text_size?: number | undefined }): string {
  return r.text_size === undefined
    ? `(${r.size} raw bytes)`
    : `(${r.text_size} bytes of text, ${r.size} raw)`;
}
