import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { turnCall } from '../turn-exits.js';
import { printTurn } from '../turn-output.js';
import { timeoutMs, withTurnTimeout } from '../turn-timeout.js';

interface WaitArgs extends CommonArgs {
  session: string;
  timeout?: string;
  json?: boolean;
}

/** `clippy wait SESSION`: block until the session's next turn completes, print its text. */
const command: CommandModule<object, WaitArgs> = {
  command: 'wait <session>',
  describe: "Wait for the session's next turn and print its text",
  builder: (y) =>
    withTurnTimeout(withSocket(y))
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('json', {
        type: 'boolean',
        describe: 'print the turn (metadata and text) as JSON',
      }) as never,
  handler: async (argv) => {
    const ms = timeoutMs(argv.timeout);
    const { turn } = await withClient(argv, (c) =>
      turnCall(() =>
        c.request(
          'wait_turn',
          { session: argv.session, ...(ms ? { timeout_ms: ms } : {}) },
          { timeoutMs: 0 },
        ),
      ),
    );
    printTurn(turn, argv.json, argv.session);
  },
};

export default command;
