import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { onFocused, withFocusedOptions, type FocusedArgs } from '../focus/focused-options.js';
import {
  injectedLine,
  requestInjection,
  withInjectOptions,
  type InjectArgs,
} from '../inject-options.js';

interface RelayArgs extends CommonArgs, InjectArgs, FocusedArgs {
  from?: string;
  to?: string;
  'focused-to'?: string;
}

/** `clippy relay FROM TO`: capture a turn and paste it into another session in one step. */
const command: CommandModule<object, RelayArgs> = {
  command: 'relay [from] [to]',
  describe: "Send a turn (FROM's latest, or a turn ID) into session TO and submit it",
  builder: (y) =>
    withFocusedOptions(withInjectOptions(withSocket(y)))
      .positional('from', {
        type: 'string',
        describe: 'session (its latest turn) or turn ID',
      })
      .positional('to', {
        type: 'string',
        describe: 'target session name or ID',
      })
      .option('focused-to', {
        type: 'string',
        requiresArg: true,
        describe: 'send the latest turn of the session you are looking at into this session',
      }) as never,
  handler: async (argv) => {
    const focusedTo = argv['focused-to'];
    if (focusedTo !== undefined && argv.from !== undefined) {
      throw new CliError('give FROM TO or --focused-to TO, not both', EXIT.usage);
    }
    if (focusedTo === undefined && (argv.from === undefined || argv.to === undefined)) {
      throw new CliError('give FROM and TO, or --focused-to TO', EXIT.usage);
    }
    const line = await withClient(argv, async (c) => {
      if (focusedTo !== undefined) {
        return onFocused(c, argv, async (f) =>
          injectedLine(
            'relayed',
            await requestInjection(c, argv, 'relay', { from: f.session, to: focusedTo }),
            focusedTo,
          ),
        );
      }
      return injectedLine(
        'relayed',
        await requestInjection(c, argv, 'relay', { from: argv.from!, to: argv.to! }),
        argv.to!,
      );
    });
    if (!argv.quiet) process.stdout.write(`${line}\n`);
  },
};

export default command;
