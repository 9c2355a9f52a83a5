import { BrokerError, parseTurnId } from '@clippy/protocol';
import type { Argv } from 'yargs';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** Exit codes of the turn commands (docs/cli.md), beside the shared ones in exit-codes.ts. */
export const TURN_EXIT = {
  /** The text was written but the target did not react to Enter (`not_submitted`). */
  notSubmitted: 2,
  /** The target stayed busy (`target_busy`): retry, or use --force. */
  targetBusy: 3,
  /** Nothing to show or relay: no turn yet, unknown turn, empty relay buffer. */
  noTurn: 4,
  /** The program still wants more input after ask's closing Enter (`needs_input`). */
  needsInput: 5,
  /** The turn was interrupted (Ctrl-C, or Esc in a TUI) before it completed: as a shell
   * reports a command ended by SIGINT (128 + 2). */
  interrupted: 130,
} as const;

/**
 * How long `wait` and `ask` wait for a turn unless `--timeout` says otherwise: a script must
 * never hang forever on a program that will not answer, and ten minutes covers an agent's long
 * turn (`--timeout 0` waits for ever).
 */
export const DEFAULT_TURN_TIMEOUT_S = 600;

const CODE_EXITS: Record<string, number> = {
  timeout: EXIT.timeout,
  not_submitted: TURN_EXIT.notSubmitted,
  target_busy: TURN_EXIT.targetBusy,
  no_turn: TURN_EXIT.noTurn,
  turn_not_found: TURN_EXIT.noTurn,
  buffer_empty: TURN_EXIT.noTurn,
  needs_input: TURN_EXIT.needsInput,
};

/** Runs a broker call, turning its error answers into CliErrors with the turn exit codes. */
export async function turnCall<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BrokerError) {
      const message = err.message.replace(/ \([a-z_]+\)$/, '');
      throw new CliError(`${message} (${err.code})`, CODE_EXITS[err.code] ?? EXIT.failure);
    }
    throw err;
  }
}

/** Whether a reference is a turn ID (`<session>:<seq>`) rather than a session. */
export function isTurnId(ref: string): boolean {
  return parseTurnId(ref) !== null;
}

/** Writes a turn's text so the shell prompt starts on a fresh line. */
export function printText(text: string): void {
  process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
}

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
 * How long the client waits for the broker's answer to an injecting request: the broker may
 * wait up to 15 s for the target to become idle and then confirm Enter, so more than that.
 */
export const INJECT_REQUEST_TIMEOUT_MS = 60_000;
