import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';

interface RmArgs extends CommonArgs {
  session: string;
}

/** `clippy rm`: forget an exited session and its stored turns. */
const command: CommandModule<object, RmArgs> = {
  command: 'rm <session>',
  describe: 'Remove an exited session (and its stored turns)',
  builder: (y) =>
    withSocket(y).positional('session', {
      type: 'string',
      demandOption: true,
      describe: 'session name or ID',
    }) as never,
  handler: async (argv) => {
    await withClient(argv, (c) => c.request('remove', { session: argv.session }));
  },
};

export default command;
