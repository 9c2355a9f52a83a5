import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import {
  requestInjection,
  reportInjected,
  withInjectOptions,
  type InjectArgs,
} from '../inject-options.js';

interface PasteArgs extends CommonArgs, InjectArgs {
  session: string;
}

/** `clippy paste SESSION`: inject the relay buffer into a session and submit it. */
const command: CommandModule<object, PasteArgs> = {
  command: 'paste <session>',
  describe: 'Paste the relay buffer into a session (waits until it is idle, then submits)',
  builder: (y) =>
    withInjectOptions(withSocket(y)).positional('session', {
      type: 'string',
      demandOption: true,
      describe: 'target session name or ID',
    }) as never,
  handler: async (argv) => {
    const result = await withClient(argv, (c) =>
      requestInjection(c, argv, 'paste', { session: argv.session }),
    );
    reportInjected(argv, 'pasted', result, argv.session);
  },
};

export default command;
