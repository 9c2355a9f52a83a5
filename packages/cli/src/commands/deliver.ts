import type { CommandModule } from 'yargs';
import { resolve } from 'node:path';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { requestInjection, withInjectOptions, type InjectArgs } from '../inject-options.js';

interface DeliverArgs extends CommonArgs, InjectArgs {
  sink: string;
  path?: string;
  session?: string;
}

/** `clippy deliver --sink S`: send the relay buffer to a file, the clipboard or a session. */
const command: CommandModule<object, DeliverArgs> = {
  command: 'deliver',
  describe: 'Deliver the relay buffer to a sink: file, clipboard or inject (a session)',
  builder: (y) =>
    withInjectOptions(
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
        }),
    ) as never,
  handler: async (argv) => {
    if (argv.sink === 'file' && !argv.path)
      throw new CliError('--sink file needs --path P', EXIT.usage);
    if (argv.sink === 'inject' && !argv.session)
      throw new CliError('--sink inject needs --session S', EXIT.usage);
    const result = await withClient(argv, (c) =>
      requestInjection(c, argv, 'deliver', {
        sink: argv.sink,
        ...(argv.path ? { path: resolve(argv.path) } : {}),
        ...(argv.session ? { session: argv.session } : {}),
      }),
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
