import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { INJECT_REQUEST_TIMEOUT_MS, turnCall } from '../turn-errors.js';

interface RelayArgs extends CommonArgs {
  from: string;
  to: string;
  raw?: boolean;
  enter?: boolean;
  force?: boolean;
  quiet?: boolean;
}

/** `clippy relay FROM TO`: capture a turn and paste it into another session in one step. */
const command: CommandModule<object, RelayArgs> = {
  command: 'relay <from> <to>',
  describe: "Send a turn (FROM's latest, or a turn ID) into session TO and submit it",
  builder: (y) =>
    withSocket(y)
      .positional('from', {
        type: 'string',
        demandOption: true,
        describe: 'session (its latest turn) or turn ID',
      })
      .positional('to', {
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
          'relay',
          {
            from: argv.from,
            to: argv.to,
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
        `relayed ${result.turn_id} (${result.size} bytes) into ${argv.to}${result.submitted ? '' : ' (not submitted)'}\n`,
      );
    }
  },
};

export default command;
