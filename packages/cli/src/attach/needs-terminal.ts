import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/**
 * An interactive attach types what stdin gives into the session and ends only on the detach key
 * or the session's end: without a terminal there is nobody to type either, so it is refused
 * before anything starts (as `tmux attach` refuses: "not a terminal"). An observer only writes
 * the session's output, so it may run without one (into a file or a pipe).
 */
export function checkInteractiveTerminal(
  what: string,
  instead: string,
  stdin: NodeJS.ReadStream = process.stdin,
): void {
  if (stdin.isTTY) return;
  throw new CliError(`${what} needs a terminal, and stdin is not one (${instead})`, EXIT.failure);
}
