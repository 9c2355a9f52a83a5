import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { intOption } from '../int-option.js';
import { EXIT } from '../exit-codes.js';

interface ResizeArgs extends CommonArgs {
  session: string;
  cols?: number;
  rows?: number;
  fit?: boolean;
  json?: boolean;
}

/** The protocol's bounds of a terminal size (Size in protocol's schemas). */
const MAX_SIZE = 1000;

/**
 * `clippy resize`: set a session's terminal size, as tmux's `resize-window`: `--fit` takes this
 * terminal's size, `--cols/--rows` any size. It holds until a client that drives the size (an
 * interactive `clippy attach`) is active again (docs/attach.md, "Size").
 */
const command: CommandModule<object, ResizeArgs> = {
  command: 'resize <session>',
  describe: "Set a session's terminal size: this terminal's (--fit) or --cols/--rows",
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('fit', { type: 'boolean', describe: "fit the session to this terminal's size" })
      .option('cols', intOption('cols', 'columns', { max: MAX_SIZE }, { alias: 'x' }))
      .option('rows', intOption('rows', 'rows', { max: MAX_SIZE }, { alias: 'y' }))
      .option('json', { type: 'boolean', describe: 'print {"session", "cols", "rows"}' })
      .conflicts('fit', ['cols', 'rows']) as never,
  handler: async (argv) => {
    let cols = argv.cols;
    let rows = argv.rows;
    if (argv.fit) {
      const out = process.stdout;
      if (!out.isTTY || !out.columns || !out.rows)
        throw new CliError(
          '--fit needs a terminal on stdout (give --cols and --rows instead)',
          EXIT.usage,
        );
      cols = out.columns;
      rows = out.rows;
    }
    if (cols === undefined && rows === undefined)
      throw new CliError('say the size: --fit, or --cols and/or --rows', EXIT.usage);
    const result = await withClient(argv, async (c) => {
      const info = (await c.request('list_sessions', {})).sessions.find(
        (s) => s.session === argv.session || s.name === argv.session,
      );
      const size = { cols: cols ?? info?.cols ?? 80, rows: rows ?? info?.rows ?? 24 };
      await c.request('resize', { session: argv.session, ...size });
      return { session: info?.name ?? argv.session, ...size };
    });
    if (argv.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`${result.session}: ${result.cols}x${result.rows}\n`);
  },
};

export default command;
