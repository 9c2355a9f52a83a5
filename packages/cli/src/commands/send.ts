import { KEY_NAMES } from '@clippy/protocol';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { MULTILINE_HELP } from '../multiline-help.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { requireSubmittable, textArg } from '../text-arg.js';

/** Exit code of `send --enter` when the text was typed but the session did not react to Enter. */
export const EXIT_NOT_SUBMITTED = 2;

interface SendArgs extends CommonArgs {
  session: string;
  text?: string;
  keys?: string[];
  enter?: boolean;
  force?: boolean;
  json?: boolean;
}

/** `clippy send`: type text into a session, as if from a keyboard; or press keys. */
const command: CommandModule<object, SendArgs> = {
  command: 'send <session> [text]',
  describe: 'Type text into a session (optionally pressing Enter), or press keys',
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .positional('text', {
        type: 'string',
        describe:
          'text to type; `-` reads it from stdin. Goes in as one bracketed paste when the program enabled paste mode (use --keys for menus)',
      })
      .option('keys', {
        alias: 'k',
        type: 'array',
        string: true,
        describe: `press these keys at once, in order: ${KEY_NAMES.join(', ')}, C-x (Ctrl), M-x (Alt), or literal text (e.g. --keys Down Down Enter, --keys 1)`,
      })
      .option('enter', {
        alias: 'e',
        type: 'boolean',
        describe: 'press Enter after the text (a separate write)',
      })
      .option('force', { type: 'boolean', describe: 'do not wait for the session to be idle' })
      .option('json', { type: 'boolean', describe: 'print the result as JSON' })
      .example('$0 send claude "explain the diff" --enter', 'type a line and submit it')
      .example('$0 send codex --keys Down Down Enter', 'pick the third entry of a menu')
      .example('git diff | $0 send claude - --enter', 'paste standard input and submit it')
      .epilogue(MULTILINE_HELP) as never,
  handler: async (argv) => {
    const text = textArg(argv.text, process.argv.slice(2));
    const keys = argv.keys?.map(String);
    if (text !== undefined && keys !== undefined)
      throw new CliError('send takes TEXT (or - for stdin) or --keys KEY..., not both', EXIT.usage);
    if (keys?.length === 0)
      throw new CliError('--keys needs at least one key (e.g. --keys Down Enter)', EXIT.usage);
    if (text === undefined && keys === undefined) {
      const enterAlone = argv.enter
        ? `; to press Enter alone: clippy send ${argv.session} --keys Enter`
        : '';
      throw new CliError(
        `send needs something to type: TEXT (or - for stdin) or --keys KEY...${enterAlone}`,
        EXIT.usage,
      );
    }
    if (text !== undefined && argv.enter) requireSubmittable(text, 'send --enter', argv.session);
    const result = await withClient(argv, (c) =>
      c.request('send', {
        session: argv.session,
        ...(keys ? { keys } : { text }),
        ...(argv.enter ? { enter: true } : {}),
        ...(argv.force ? { force: true } : {}),
      }),
    );
    if (argv.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    if (argv.enter && !result.submitted && !keys) {
      process.stderr.write(
        `clippy: the text was typed into ${argv.session} but it did not react to Enter\n`,
      );
      process.exitCode = EXIT_NOT_SUBMITTED;
    }
  },
};

export default command;
