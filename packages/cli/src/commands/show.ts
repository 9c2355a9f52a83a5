import { parseTurnId } from '@clippy/protocol';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { turnCall } from '../turn-exits.js';
import { printText } from '../turn-output.js';

interface ShowArgs extends CommonArgs {
  ref: string;
  raw?: boolean;
  text?: boolean;
  screen?: boolean;
  meta?: boolean;
  json?: boolean;
}

/** `clippy show TURN|SESSION`: print a turn (a session's latest when given a session). */
const command: CommandModule<object, ShowArgs> = {
  command: 'show <ref>',
  describe: "Print a turn's text (or its raw bytes, or its metadata)",
  builder: (y) =>
    withSocket(y)
      .positional('ref', {
        type: 'string',
        demandOption: true,
        describe: 'turn ID (claude:3) or session (its latest turn)',
      })
      .option('raw', {
        type: 'boolean',
        describe: 'write the raw bytes exactly as the agent printed them',
      })
      .option('text', {
        type: 'boolean',
        describe:
          "write the readable text (the default): the agent's own Markdown when its channel gave it",
      })
      .option('screen', {
        type: 'boolean',
        describe:
          'write the text read off the screen (UI chrome removed), even when the agent gave its own',
      })
      .option('meta', { type: 'boolean', describe: 'print the metadata only' })
      .option('json', { type: 'boolean', describe: 'print metadata and text as JSON' })
      .conflicts('raw', 'text')
      .conflicts('raw', 'screen')
      .conflicts('text', 'screen') as never,
  handler: async (argv) => {
    const { turn } = await withClient(argv, (c) =>
      turnCall(() =>
        c.request(
          'get_turn',
          // Shown: it (and the turns before it) is no longer unread.
          {
            ...(parseTurnId(argv.ref) !== null ? { turn_id: argv.ref } : { session: argv.ref }),
            read: true,
          },
        ),
      ),
    );
    const { content, text, screen_text: screenText, ...meta } = turn;
    if (argv.json) {
      process.stdout.write(
        `${JSON.stringify({ ...meta, text, ...(screenText !== undefined ? { screen_text: screenText } : {}) }, null, 2)}\n`,
      );
    } else if (argv.meta) {
      for (const line of metaLines(meta)) process.stdout.write(`${line}\n`);
    } else if (argv.raw) {
      process.stdout.write(Buffer.from(content));
    } else {
      printText(argv.screen ? (screenText ?? text) : text);
    }
  },
};

/**
 * `key: value` lines of a turn's metadata: strings quoted, a nested record (the agent's own
 * record of the turn) as one line per field under a dotted key (`agent.model: "…"`), as
 * `git config --list` does, so that each fact is one line to grep.
 */
function metaLines(meta: Record<string, unknown>, prefix = ''): string[] {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(meta)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      lines.push(...metaLines(v as Record<string, unknown>, `${prefix}${k}.`));
    else
      lines.push(
        `${prefix}${k}: ${typeof v === 'string' || Array.isArray(v) ? JSON.stringify(v) : String(v)}`,
      );
  }
  return lines;
}

export default command;
