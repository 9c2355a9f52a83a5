import { readFileSync } from 'node:fs';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

// The TEXT|- argument of the commands that type text into a session (`send`, `ask`).

/**
 * The text given: the argument, or standard input for `-` (an argument over ~128 KB is refused
 * by the OS, so long texts come this way). undefined when no TEXT was given.
 */
export function textArg(given: unknown, rawArgs: readonly string[]): string | undefined {
  if (given === undefined) return undefined;
  // yargs turns a lone `-` into '' (as it does an empty argument): look at the raw words.
  const dash = given === '-' || (given === '' && rawArgs.includes('-'));
  return dash ? readFileSync(0, 'utf8') : String(given);
}

/**
 * Refuses a text that would submit nothing (empty or only whitespace), at once: a program
 * shows no reaction to it, and the command would wait for one in vain.
 */
export function requireSubmittable(text: string, command: string, session: string): void {
  if (text.trim() !== '') return;
  throw new CliError(
    `${command} has nothing to submit: the text is empty${text === '' ? '' : ' (only whitespace)'}; to press Enter alone: clippy send ${session} --keys Enter`,
    EXIT.usage,
  );
}
