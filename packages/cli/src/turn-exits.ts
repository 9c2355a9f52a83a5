import { BrokerError } from '@clippy/protocol';
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
