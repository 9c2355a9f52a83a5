import type { CommandModule } from 'yargs';
import { runAttach } from '../attach/attach-session.js';
import { directAttachAllowed, resolveDetachKey } from '../attach/config.js';
import { checkInteractiveTerminal } from '../attach/needs-terminal.js';
import { connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

interface AttachArgs extends CommonArgs {
  session: string;
  'detach-key'?: string;
  observer?: boolean;
}

/** `clippy attach`: show a session in this terminal and type into it, until detach or exit. */
const command: CommandModule<object, AttachArgs> = {
  command: 'attach <session>',
  describe: 'Attach this terminal to a session (detach with Ctrl-])',
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('detach-key', {
        type: 'string',
        requiresArg: true,
        describe: 'key that detaches (default ctrl-]; env CLIPPY_DETACH_KEY; config detachKey)',
      })
      .option('observer', {
        type: 'boolean',
        describe: 'watch only: keystrokes are not sent, size is not changed',
      }) as never,
  handler: async (argv) => {
    let detachKey;
    try {
      detachKey = resolveDetachKey(argv['detach-key']);
    } catch (err) {
      throw new CliError((err as Error).message, EXIT.usage);
    }
    if (!argv.observer) {
      checkInteractiveTerminal(
        'attach',
        `to watch without one: clippy attach --observer ${argv.session}; to type into it: clippy send`,
      );
    }
    const { client, remote } = await connectForCommand(argv);
    try {
      process.exitCode = await runAttach(client, {
        session: argv.session,
        detachKey,
        observer: Boolean(argv.observer),
        direct: directAttachAllowed(remote),
      });
    } finally {
      await client.close();
    }
  },
};

export default command;
