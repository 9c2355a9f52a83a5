import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { costLabel, tokenLabel } from './ls.js';
import { clockTime, renderTable } from '../table.js';
import { intOption } from '../int-option.js';
import { turnCall } from '../turn-exits.js';

interface TurnsArgs extends CommonArgs {
  session: string;
  limit?: number;
  json?: boolean;
}

/** `clippy turns SESSION`: the session's stored turns, newest first. */
const command: CommandModule<object, TurnsArgs> = {
  command: 'turns <session>',
  describe: "List a session's stored turns, newest first",
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('limit', intOption('limit', 'at most this many turns', {}, { alias: 'n' }))
      .option('json', { type: 'boolean', describe: 'print the list as JSON' }) as never,
  handler: async (argv) => {
    const { turns } = await withClient(argv, (c) =>
      turnCall(() =>
        c.request('list_turns', {
          session: argv.session,
          ...(argv.limit !== undefined ? { limit: argv.limit } : {}),
        }),
      ),
    );
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(turns, null, 2)}\n`);
      return;
    }
    if (turns.length === 0) {
      process.stdout.write(`no turns in ${argv.session} yet\n`);
      return;
    }
    // TOKENS and COST only when the agent reported tokens (its channel), as in `clippy ls`.
    const usage = turns.some(
      (t) => t.agent?.input_tokens !== undefined || t.agent?.output_tokens !== undefined,
    );
    const rows = turns.map((t) => [
      t.turn_id,
      clockTime(t.timestamp),
      String(t.byte_length),
      `${(t.duration_ms / 1000).toFixed(1)}s`,
      [t.interrupted ? 'interrupted' : '', t.truncated ? 'truncated' : '']
        .filter(Boolean)
        .join(',') || '-',
      ...(usage ? [tokenLabel(t.agent ?? {}), costLabel(t.agent ?? {})] : []),
      t.prompt,
    ]);
    process.stdout.write(
      renderTable(
        [
          { header: 'TURN' },
          { header: 'TIME' },
          { header: 'BYTES', right: true },
          { header: 'TOOK', right: true },
          { header: 'FLAGS' },
          ...(usage
            ? [
                { header: 'TOKENS', right: true },
                { header: 'COST', right: true },
              ]
            : []),
          { header: 'PROMPT', max: 50 },
        ],
        rows,
      ),
    );
  },
};

export default command;
