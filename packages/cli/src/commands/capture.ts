import { parseTurnId } from '@clippy/protocol';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { turnCall } from '../turn-exits.js';

interface CaptureArgs extends CommonArgs {
  ref: string;
  quiet?: boolean;
}

/** `clippy capture SESSION|TURN`: put a turn into the relay buffer. */
const command: CommandModule<object, CaptureArgs> = {
  command: 'capture <ref>',
  describe: "Copy a turn (a session's latest, or a turn ID) into the relay buffer",
  builder: (y) =>
    withSocket(y)
      .positional('ref', {
        type: 'string',
        demandOption: true,
        describe: 'session (its latest turn) or turn ID (claude:3)',
      })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing' }) as never,
  handler: async (argv) => {
    const result = await withClient(argv, (c) =>
      turnCall(() =>
        parseTurnId(argv.ref) !== null
          ? c.request('capture_by_id', { turn_id: argv.ref })
          : c.request('capture', { session: argv.ref }),
      ),
    );
    if (!argv.quiet) process.stdout.write(`captured ${result.turn_id} (${result.size} bytes)\n`);
  },
};

export default command;
