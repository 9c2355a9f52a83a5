import type { CommandModule } from 'yargs';
import { resolve } from 'node:path';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { INJECT_REQUEST_TIMEOUT_MS, turnCall } from '../turn-errors.js';

interface DeliverArgs extends CommonArgs {
  sink: string;
  path?: string;
  session?: string;
  raw?: boolean;
  enter?: boolean;
  force?: boolean;
  quiet?: boolean;
}

/** `clippy deliver --sink S`: send the relay buffer to a file, the clipboard or a session. */
const command: CommandModule<object, DeliverArgs> = {
  command: 'deliver',
  describe: 'Deliver the relay buffer to a sink: file, clipboard or inject (a session)',
  builder: (y) =>
    withSocket(y)
      .option('sink', {
        type: 'string',
        demandOption: true,
        requiresArg: true,
        choices: ['file', 'clipboard', 'inject'],
        describe: 'where to deliver',
      })
      .option('path', {
        type: 'string',
        requiresArg: true,
        describe: 'file to overwrite (sink file)',
      })
      .option('session', {
        alias: 's',
        type: 'string',
        requiresArg: true,
        describe: 'target session (sink inject)',
      })
      .option('raw', {
        type: 'boolean',
        describe: 'deliver the raw bytes instead of the readable text',
      })
      .option('enter', {
        type: 'boolean',
        default: true,
        describe: 'sink inject: submit after pasting',
      })
      .option('force', {
        type: 'boolean',
        describe: 'sink inject: do not wait for the target to be idle',
      })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing' }) as never,
  handler: async (argv) => {
    if (argv.sink === 'file' && !argv.path)
      throw new CliError('--sink file needs --path P', EXIT.usage);
    if (argv.sink === 'inject' && !argv.session)
      throw new CliError('--sink inject needs --session S', EXIT.usage);
    const result = await withClient(argv, (c) =>
      turnCall(() =>
        c.request(
          'deliver',
          {
            sink: argv.sink,
            ...(argv.path ? { path: resolve(argv.path) } : {}),
            ...(argv.session ? { session: argv.session } : {}),
            raw: argv.raw ?? false,
            enter: argv.enter ?? true,
            force: argv.force ?? false,
          },
          { timeoutMs: INJECT_REQUEST_TIMEOUT_MS },
        ),
      ),
    );
    if (!argv.quiet) {
      const where =
        argv.sink === 'file'
          ? resolve(argv.path!)
          : argv.sink === 'inject'
            ? argv.session
            : 'the clipboard';
      process.stdout.write(`delivered ${result.turn_id} (${result.size} bytes) to ${where}\n`);
    }
  },
};

export default command;
