import type { ClippyClient } from '@clippy/client';
import type { Argv } from 'yargs';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { ADAPTER_NAMES, type AdapterName } from './adapter.js';
import { showFeedback } from './feedback.js';
import { resolveFocused, type FocusedSession } from './resolve-focused.js';

/** Options of the commands that can act on the focused session. */
export interface FocusedArgs {
  via?: AdapterName[];
  notify?: boolean;
}

/** Adds `--via ADAPTER` and `--notify`. */
export function withFocusedOptions<T>(y: Argv<T>): Argv<T & FocusedArgs> {
  return y
    .option('via', {
      type: 'string',
      array: true,
      choices: ADAPTER_NAMES as unknown as string[],
      describe: 'with --focused: ask only these resolvers (default: all, in this order)',
    })
    .option('notify', {
      type: 'boolean',
      describe:
        'also show the outcome as a desktop notification, else in the focused terminal (for key bindings)',
    }) as Argv<T & FocusedArgs>;
}

/**
 * Runs `action` on the focused session. With --notify, its one-line outcome (or the error) is
 * shown where the user looks, too; errors still end the command with their exit code.
 */
export async function onFocused(
  client: ClippyClient,
  argv: FocusedArgs,
  action: (focused: FocusedSession) => Promise<string>,
): Promise<string> {
  let focused: FocusedSession | undefined;
  try {
    focused = await resolveFocused(client, argv.via);
    const line = await action(focused);
    if (argv.notify) {
      await showFeedback(client, { text: line, isError: false, session: focused.session });
    }
    return line;
  } catch (err) {
    if (argv.notify) {
      const text = err instanceof Error ? err.message : String(err);
      await showFeedback(client, {
        text,
        isError: true,
        ...(focused ? { session: focused.session } : {}),
      });
    }
    throw err;
  }
}

/** Exactly one of a positional session and --focused. */
export function checkOneTarget(positional: unknown, focused: unknown, what: string): void {
  if (positional !== undefined && focused) {
    throw new CliError(`give ${what} or --focused, not both`, EXIT.usage);
  }
  if (positional === undefined && !focused) {
    throw new CliError(`give ${what}, or --focused for the session you are looking at`, EXIT.usage);
  }
}
