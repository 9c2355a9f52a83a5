import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { turnCall } from '../turn-exits.js';
import { parseSince } from '../since.js';
import { intOption } from '../int-option.js';

/** The most results `history_search` returns (its schema's bound). */
const MAX_SEARCH_RESULTS = 1000;

interface SearchArgs extends CommonArgs {
  text: string[];
  session?: string;
  since?: string;
  limit?: number;
  json?: boolean;
}

/** `clippy history search TEXT`: full-text search over persisted turns. */
const search: CommandModule<object, SearchArgs> = {
  command: 'search <text..>',
  describe: 'Find persisted turns whose text contains TEXT (newest first, matching lines)',
  builder: (y) =>
    withSocket(y)
      .positional('text', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'words to find (case-insensitive)',
      })
      .option('session', {
        alias: 's',
        type: 'string',
        requiresArg: true,
        describe: 'only this session (name or ID)',
      })
      .option('since', {
        type: 'string',
        requiresArg: true,
        describe: 'only turns since: 30m, 12h, 2d, 1w, or a date',
      })
      .option(
        'limit',
        intOption(
          'limit',
          'most results (default 20)',
          { max: MAX_SEARCH_RESULTS },
          { alias: 'n' },
        ),
      )
      .option('json', { type: 'boolean', describe: 'print {"results": [...]} as JSON' }) as never,
  handler: async (argv) => {
    const query = argv.text.join(' ');
    const since = argv.since !== undefined ? parseSince(argv.since) : undefined;
    const { results } = await withClient(argv, (c) =>
      turnCall(() =>
        c.request('history_search', {
          query,
          ...(argv.session !== undefined ? { session: argv.session } : {}),
          ...(since !== undefined ? { since } : {}),
          ...(argv.limit !== undefined ? { limit: argv.limit } : {}),
        }),
      ),
    );
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ results }, null, 2)}\n`);
      return;
    }
    if (results.length === 0) {
      process.stderr.write(`no persisted turn contains '${query}'\n`);
      process.exitCode = 1;
      return;
    }
    for (const r of results) {
      const when = new Date(r.turn.timestamp).toISOString().replace('T', ' ').slice(0, 19);
      process.stdout.write(`${r.turn.turn_id}  ${r.name}  ${when}\n`);
      for (const line of r.lines) process.stdout.write(`    ${line}\n`);
    }
  },
};

/** `clippy history …`: the persisted turns (see docs/persistence.md). */
const command: CommandModule<object, CommonArgs> = {
  command: 'history',
  describe: 'Search the persisted turn history',
  builder: (y) => y.command(search).demandCommand(1, 'Name an action: search.') as never,
  handler: () => {},
};

export default command;
