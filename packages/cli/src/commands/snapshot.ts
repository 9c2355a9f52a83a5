import { writeFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { turnCall } from '../turn-exits.js';
import { CliError } from '../errors.js';

interface SnapshotArgs extends CommonArgs {
  session: string;
  output?: string;
}

/** `clippy snapshot SESSION [-o FILE]`: screen, scrollback and turns as one JSON document. */
const command: CommandModule<object, SnapshotArgs> = {
  command: 'snapshot <session>',
  describe: "Write a session's screen, scrollback and turns as JSON (docs/persistence.md)",
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('output', {
        alias: 'o',
        type: 'string',
        requiresArg: true,
        describe: 'write to FILE (mode 0600) instead of stdout',
      }) as never,
  handler: async (argv) => {
    const { snapshot } = await withClient(argv, (c) =>
      turnCall(() => c.request('snapshot', { session: argv.session })),
    );
    const json = `${JSON.stringify(snapshot, null, 2)}\n`;
    if (!argv.output) {
      process.stdout.write(json);
      return;
    }
    try {
      // 0600: a session's turns may hold secrets.
      writeFileSync(argv.output, json, { mode: 0o600 });
    } catch (err) {
      throw new CliError(`cannot write ${argv.output}: ${(err as Error).message}`);
    }
    process.stderr.write(
      `snapshot of ${snapshot.session.name}: ${snapshot.turns.length} turns written to ${argv.output}\n`,
    );
  },
};

export default command;
