import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';

/** Exit code of `send --enter` when the text was typed but the session did not react to Enter. */
export const EXIT_NOT_SUBMITTED = 2;

interface SendArgs extends CommonArgs {
  session: string;
  text: string;
  enter?: boolean;
  force?: boolean;
  json?: boolean;
}

/** `clippy send`: type text into a session, as if from a keyboard. */
const command: CommandModule<object, SendArgs> = {
  command: 'send <session> <text>',
  describe: 'Type text into a session (optionally pressing Enter)',
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .positional('text', { type: 'string', demandOption: true, describe: 'text to type (as is)' })
      .option('enter', {
        alias: 'e',
        type: 'boolean',
        describe: 'press Enter after the text (a separate write)',
      })
      .option('force', { type: 'boolean', describe: 'do not wait for the session to be idle' })
      .option('json', { type: 'boolean', describe: 'print the result as JSON' }) as never,
  handler: async (argv) => {
    const result = await withClient(argv, (c) =>
      c.request('send', {
        session: argv.session,
        text: String(argv.text),
        ...(argv.enter ? { enter: true } : {}),
        ...(argv.force ? { force: true } : {}),
      }),
    );
    if (argv.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    if (argv.enter && !result.submitted) {
      process.stderr.write(
        `clippy: the text was typed into ${argv.session} but it did not react to Enter\n`,
      );
      process.exitCode = EXIT_NOT_SUBMITTED;
    }
  },
};

export default command;
