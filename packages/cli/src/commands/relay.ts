import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import {
  requestInjection,
  reportInjected,
  withInjectOptions,
  type InjectArgs,
} from '../inject-options.js';

interface RelayArgs extends CommonArgs, InjectArgs {
  from: string;
  to: string;
}

/** `clippy relay FROM TO`: capture a turn and paste it into another session in one step. */
const command: CommandModule<object, RelayArgs> = {
  command: 'relay <from> <to>',
  describe: "Send a turn (FROM's latest, or a turn ID) into session TO and submit it",
  builder: (y) =>
    withInjectOptions(withSocket(y))
      .positional('from', {
        type: 'string',
        demandOption: true,
        describe: 'session (its latest turn) or turn ID',
      })
      .positional('to', {
        type: 'string',
        demandOption: true,
        describe: 'target session name or ID',
      }) as never,
  handler: async (argv) => {
    const result = await withClient(argv, (c) =>
      requestInjection(c, argv, 'relay', { from: argv.from, to: argv.to }),
    );
    reportInjected(argv, 'relayed', result, argv.to);
  },
};

export default command;
