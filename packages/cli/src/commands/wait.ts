import type { CommandModule } from 'yargs';
import { parseTurnPosition } from '@clippy/protocol';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { turnCall } from '../turn-exits.js';
import { printTurn } from '../turn-output.js';
import { timeoutMs, withTurnTimeout } from '../turn-timeout.js';

interface WaitArgs extends CommonArgs {
  session: string;
  after?: string;
  timeout?: string;
  json?: boolean;
}

/** `--after`: a turn ID (`claude:3`, `claude:0` for before the first), or the session's turn N. */
function afterPosition(session: string, after: string): string {
  const position = /^\d+$/u.test(after) ? `${session}:${Number(after)}` : after;
  if (parseTurnPosition(position) === null) {
    throw new CliError(
      `--after takes a turn ID such as ${session}:3 (${session}:0 for before its first turn), or its number (got '${after}')`,
      EXIT.usage,
    );
  }
  return position;
}

/** `clippy wait SESSION`: block until the session's next turn completes, print its text. */
const command: CommandModule<object, WaitArgs> = {
  command: 'wait <session>',
  describe: "Wait for the session's next turn and print its text",
  builder: (y) =>
    withTurnTimeout(withSocket(y))
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('after', {
        type: 'string',
        requiresArg: true,
        describe:
          'the first turn after this one (a turn ID or its number; it may already be there): race-free for scripts. Default: the next turn to complete from now',
      })
      .option('json', {
        type: 'boolean',
        describe: 'print the turn (metadata and text) as JSON',
      })
      .example(
        'last=$($0 turns S --json | jq -r \'.[0].turn_id // "S:0"\'); $0 send S "make" --enter; $0 wait S --after "$last"',
        'the answer to what was sent, even if it came before wait asked',
      ) as never,
  handler: async (argv) => {
    const ms = timeoutMs(argv.timeout);
    const after = argv.after === undefined ? undefined : afterPosition(argv.session, argv.after);
    const { turn } = await withClient(argv, (c) =>
      turnCall(() =>
        c.request(
          'wait_turn',
          {
            session: argv.session,
            ...(ms ? { timeout_ms: ms } : {}),
            ...(after ? { after } : {}),
          },
          { timeoutMs: 0 },
        ),
      ),
    );
    printTurn(turn, argv.json, argv.session);
  },
};

export default command;
