import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { turnCall } from '../turn-exits.js';
import { INJECT_REQUEST_TIMEOUT_MS } from '../turn-timeout.js';
import { intOption } from '../int-option.js';

/** The most turns `replay` sends (its schema's bound). */
const MAX_REPLAY_TURNS = 1000;

interface ReplayArgs extends CommonArgs {
  session: string;
  last: number;
  into: string;
  template?: string;
  enter?: boolean;
  force?: boolean;
  quiet?: boolean;
}

/** `clippy replay SESSION --last N --into TARGET`: brief another session with earlier turns. */
const command: CommandModule<object, ReplayArgs> = {
  command: 'replay <session>',
  describe: 'Send the last N turns of SESSION (persisted ones too) into TARGET as one message',
  builder: (y) =>
    withSocket(y)
      .positional('session', {
        type: 'string',
        demandOption: true,
        describe: 'where the turns come from (may have exited)',
      })
      .option(
        'last',
        intOption(
          'last',
          'how many of its newest turns',
          { max: MAX_REPLAY_TURNS },
          { alias: 'n', demandOption: true },
        ),
      )
      .option('into', {
        type: 'string',
        demandOption: true,
        requiresArg: true,
        describe: 'the live session that receives them',
      })
      .option('enter', {
        type: 'boolean',
        default: true,
        describe: 'submit after pasting (--no-enter: leave it in the input)',
      })
      .option('force', { type: 'boolean', describe: 'do not wait for the target to be idle' })
      .option('template', {
        type: 'string',
        requiresArg: true,
        describe:
          'a route template (plain, review, implement, synthesize, or yours; docs/routes.md)',
      })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing' }) as never,
  handler: async (argv) => {
    const result = await withClient(argv, (c) =>
      turnCall(() =>
        c.request(
          'replay',
          {
            session: argv.session,
            last: argv.last,
            into: argv.into,
            ...(argv.template !== undefined ? { template: argv.template } : {}),
            enter: argv.enter ?? true,
            force: argv.force ?? false,
          },
          { timeoutMs: INJECT_REQUEST_TIMEOUT_MS },
        ),
      ),
    );
    if (argv.quiet) return;
    const note = result.submitted ? '' : ' (not submitted)';
    process.stdout.write(
      `replayed ${result.turns.length} turn${result.turns.length === 1 ? '' : 's'} (${result.size} bytes) into ${argv.into}${note}\n`,
    );
  },
};

export default command;
