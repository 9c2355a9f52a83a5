import type { CommandModule } from 'yargs';
import { BrokerError } from '@clippy/protocol';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';

interface RmArgs extends CommonArgs {
  session: string;
  force?: boolean;
}

/** `clippy rm`: forget an exited session and its stored turns (and its worktree, if clean). */
const command: CommandModule<object, RmArgs> = {
  command: 'rm <session>',
  describe:
    'Remove an exited session (its stored turns, and its worktree if nothing would be lost)',
  builder: (y) =>
    withSocket(y)
      .positional('session', {
        type: 'string',
        demandOption: true,
        describe: 'session name or ID',
      })
      .option('force', {
        alias: 'f',
        type: 'boolean',
        describe:
          'remove its worktree even with uncommitted or unmerged work (says what is lost; the branch stays)',
      }) as never,
  handler: async (argv) => {
    await withClient(argv, async (c) => {
      try {
        // Deleting a large worktree takes what it takes: the daemon bounds git itself.
        const { worktree_removed: w } = await c.request(
          'remove',
          { session: argv.session, ...(argv.force ? { force: true } : {}) },
          { timeoutMs: 0 },
        );
        if (w?.link !== undefined) {
          process.stderr.write(
            `clippy: removed the symbolic link ${w.path} that had replaced its worktree (${w.link} left untouched); branch ${w.branch} kept\n`,
          );
        } else if (w) {
          const lost = w.lost ? `; lost: ${w.lost}` : '';
          process.stderr.write(
            `clippy: removed the worktree ${w.path}${lost}; branch ${w.branch} kept\n`,
          );
        }
      } catch (err) {
        if (!(err instanceof BrokerError) || err.code !== 'invalid_argument') throw err;
        // The broker refuses a live session in protocol terms (`kill` with `remove`); a user
        // of the CLI needs the command that does it.
        const { sessions } = await c.request('list_sessions', {});
        const live = sessions.find(
          (s) => s.state !== 'exited' && (s.session === argv.session || s.name === argv.session),
        );
        if (!live) throw err;
        // `kill` removes what it ends, but keeps a session that has a worktree (its work).
        throw new CliError(
          live.worktree
            ? `session '${live.name}' is still running: end it with \`clippy kill ${live.name}\` (it stays listed with its worktree), then \`clippy rm ${live.name}\``
            : `session '${live.name}' is still running: end it with \`clippy kill ${live.name}\` (which also removes it)`,
        );
      }
    });
  },
};

export default command;
