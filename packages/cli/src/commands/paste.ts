import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import {
  checkOneTarget,
  onFocused,
  withFocusedOptions,
  type FocusedArgs,
} from '../focus/focused-options.js';
import {
  injectedLine,
  requestInjection,
  withInjectOptions,
  type InjectArgs,
} from '../inject-options.js';

interface PasteArgs extends CommonArgs, InjectArgs, FocusedArgs {
  session?: string;
  focused?: boolean;
}

/** `clippy paste SESSION`: inject the relay buffer into a session and submit it. */
const command: CommandModule<object, PasteArgs> = {
  command: 'paste [session]',
  describe: 'Paste the relay buffer into a session (waits until it is idle, then submits)',
  builder: (y) =>
    withFocusedOptions(withInjectOptions(withSocket(y)))
      .positional('session', {
        type: 'string',
        describe: 'target session name or ID',
      })
      .option('focused', {
        type: 'boolean',
        describe: 'paste into the session you are looking at (see clippy focused)',
      }) as never,
  handler: async (argv) => {
    checkOneTarget(argv.session, argv.focused, 'a target session');
    const line = await withClient(argv, async (c) => {
      if (argv.focused) {
        return onFocused(c, argv, async (f) =>
          injectedLine(
            'pasted',
            await requestInjection(c, argv, 'paste', { session: f.session }),
            f.name,
          ),
        );
      }
      const target = argv.session!;
      return injectedLine(
        'pasted',
        await requestInjection(c, argv, 'paste', { session: target }),
        target,
      );
    });
    if (!argv.quiet) process.stdout.write(`${line}\n`);
  },
};

export default command;
