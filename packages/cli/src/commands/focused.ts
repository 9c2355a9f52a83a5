import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import type { AdapterName } from '../focus/adapter.js';
import { withFocusedOptions } from '../focus/focused-options.js';
import { resolveFocused } from '../focus/resolve-focused.js';

interface FocusedCmdArgs extends CommonArgs {
  via?: AdapterName[];
  json?: boolean;
}

/** `clippy focused`: the session the user is looking at, or why none can be named. */
const command: CommandModule<object, FocusedCmdArgs> = {
  command: 'focused',
  describe: 'Print the session you are looking at (focus reports, tmux, X11), or say why none',
  builder: (y) =>
    withFocusedOptions(withSocket(y)).option('json', {
      type: 'boolean',
      describe: 'print {"session", "name", "via"} as JSON',
    }) as never,
  handler: async (argv) => {
    const focused = await withClient(argv, (c) => resolveFocused(c, argv.via));
    if (argv.json) process.stdout.write(`${JSON.stringify(focused)}\n`);
    else process.stdout.write(`${focused.name}\n`);
  },
};

export default command;
