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
