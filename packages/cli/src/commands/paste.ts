import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import {
  injectFields,
  reportInjected,
  withInjectOptions,
  type InjectArgs,
} from '../inject-options.js';
import { INJECT_REQUEST_TIMEOUT_MS, turnCall } from '../turn-errors.js';

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
      turnCall(() =>
        c.request(
          'paste',
          { session: argv.session, ...injectFields(argv) },
          { timeoutMs: INJECT_REQUEST_TIMEOUT_MS },
        ),
      ),
    );
    reportInjected(argv, 'pasted', result, argv.session);
  },
};

export default command;
