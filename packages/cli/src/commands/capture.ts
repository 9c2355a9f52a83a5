import { parseTurnId } from '@clippy/protocol';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import {
  checkOneTarget,
  onFocused,
  withFocusedOptions,
  type FocusedArgs,
} from '../focus/focused-options.js';
import { turnCall } from '../turn-exits.js';
import { capturedSize } from '../turn-output.js';

interface CaptureArgs extends CommonArgs, FocusedArgs {
  ref?: string;
  focused?: boolean;
  quiet?: boolean;
}

/** `clippy capture SESSION|TURN`: put a turn into the relay buffer. */
const command: CommandModule<object, CaptureArgs> = {
  command: 'capture [ref]',
  describe: "Copy a turn (a session's latest, or a turn ID) into the relay buffer",
  builder: (y) =>
    withFocusedOptions(withSocket(y))
      .positional('ref', {
        type: 'string',
        describe: 'session (its latest turn) or turn ID (claude:3)',
      })
      .option('focused', {
        type: 'boolean',
        describe: 'the latest turn of the session you are looking at (see clippy focused)',
      })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing' }) as never,
  handler: async (argv) => {
    checkOneTarget(argv.ref, argv.focused, 'a session or turn ID');
    const line = await withClient(argv, async (c) => {
      if (argv.focused) {
        return onFocused(c, argv, async (f) => {
          const r = await turnCall(() => c.request('capture', { session: f.session }));
          return `captured ${r.turn_id} ${capturedSize(r)}`;
        });
      }
      const ref = argv.ref!;
      const r = await turnCall(() =>
        parseTurnId(ref) !== null
          ? c.request('capture_by_id', { turn_id: ref })
          : c.request('capture', { session: ref }),
      );
      return `captured ${r.turn_id} ${capturedSize(r)}`;
    });
    if (!argv.quiet) process.stdout.write(`${line}\n`);
  },
};

export default command;
