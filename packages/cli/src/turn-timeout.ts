import type { Argv } from 'yargs';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

// How long the turn commands wait: for a turn (`wait`, `ask`) and for an injection's answer.

/**
 * How long `wait` and `ask` wait for a turn unless `--timeout` says otherwise: a script must
 * never hang forever on a program that will not answer, and ten minutes covers an agent's long
 * turn (`--timeout 0` waits for ever).
 */
export const DEFAULT_TURN_TIMEOUT_S = 600;

/** Adds `--timeout SECONDS` (`-t`) of the commands that wait for a turn (`wait`, `ask`). */
export function withTurnTimeout<T>(y: Argv<T>): Argv<T & { timeout?: string }> {
  // A string, parsed by timeoutMs: yargs turns a non-number into NaN and loses what was typed.
  return y.option('timeout', {
    alias: 't',
    type: 'string',
    requiresArg: true,
    describe: `give up after this many seconds (exit 124; default ${DEFAULT_TURN_TIMEOUT_S}, 0 waits for ever)`,
  });
}

/**
 * Seconds from the command line to milliseconds for the broker: DEFAULT_TURN_TIMEOUT_S when
 * not given, undefined (no limit) for 0.
 */
export function timeoutMs(given: string | undefined): number | undefined {
  if (given === undefined) return DEFAULT_TURN_TIMEOUT_S * 1000;
  const seconds = given.trim() === '' ? NaN : Number(given);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new CliError(
      `--timeout must be a number of seconds, 0 for no limit (got '${given}')`,
      EXIT.usage,
    );
  }
  if (seconds === 0) return undefined;
  return Math.max(1, Math.round(seconds * 1000));
}

/**
 * How long the client waits for the broker's answer to an injecting request: the broker may
 * wait up to 15 s for the target to become idle and then confirm Enter, so more than that.
 */
export const INJECT_REQUEST_TIMEOUT_MS = 60_000;
