import { readConfigFile } from './config-files.js';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

/**
 * The terminal type every session gets by default. A session outlives the terminal that
 * started it and any terminal may attach to it later, so its TERM cannot be that terminal's:
 * it is the type clippy's own screen model (xterm.js) implements and that every modern
 * terminal emulator accepts, with 256 colours (agents such as Gemini CLI warn without them).
 */
export const DEFAULT_SESSION_TERM = 'xterm-256color';

/** What a terminfo name looks like: letters, digits and `.+-_`, no spaces or slashes. */
const TERM_NAME = /^[A-Za-z0-9][A-Za-z0-9.+_-]*$/;

/**
 * The TERM of a new session: `--term`, else `term` in the config file, else xterm-256color.
 * The caller's own TERM is not used (see DEFAULT_SESSION_TERM). A bad name is a usage error.
 */
export function resolveSessionTerm(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (flag !== undefined) {
    if (!TERM_NAME.test(flag))
      throw new CliError(
        `--term '${flag}' is not a terminal type name (like ${DEFAULT_SESSION_TERM})`,
        EXIT.usage,
      );
    return flag;
  }
  const configured = readConfigFile(env).term;
  if (configured === undefined) return DEFAULT_SESSION_TERM;
  if (!TERM_NAME.test(configured))
    throw new CliError(
      `the config file's term '${configured}' is not a terminal type name (like ${DEFAULT_SESSION_TERM})`,
      EXIT.usage,
    );
  return configured;
}
