import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { INJECT_REQUEST_TIMEOUT_MS, turnCall } from '../turn-errors.js';

interface PasteArgs extends CommonArgs {
  session: string;
  raw?: boolean;
  enter?: boolean;
  force?: boolean;
  quiet?: boolean;
}

/** `clippy paste SESSION`: inject the relay buffer into a session and submit it. */
const command: CommandModule<object, PasteArgs> = {
  command: 'paste <session>',
  describe: 'Paste the relay buffer into a session (waits until it is idle, then submits)',
  builder: (y) =>
    withSocket(y)
      .positional('session', {
        type: 'string',
        demandOption: true,
        describe: 'target session name or ID',
      })
      .option('raw', {
        type: 'boolean',
        describe: 'send the raw bytes instead of the readable text',
      })
      .option('enter', {
        type: 'boolean',
        default: true,
        describe: 'submit after pasting (--no-enter: leave it in the input)',
      })
      .option('force', { type: 'boolean', describe: 'do not wait for the target to be idle' })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing' }) as never,
  handler: async (argv) => {
    const result = await withClient(argv, (c) =>
      turnCall(() =>
        c.request(
          'paste',
          {
            session: argv.session,
            raw: argv.raw ?? false,
            enter: argv.enter ?? true,
            force: argv.force ?? false,
          },
          { timeoutMs: INJECT_REQUEST_TIMEOUT_MS },
        ),
      ),
    );
    if (!argv.quiet) {
      process.stdout.write(
        `pasted ${result.turn_id} (${result.size} bytes) into ${argv.session}${result.submitted ? '' : ' (not submitted)'}\n`,
      );
    }
  },
};

export default command;
