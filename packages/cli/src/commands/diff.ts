import type { CommandModule } from 'yargs';
import { diffNameLines, diffStatLines } from '@clippy/system/git';
import { BrokerError, type ClippyClient } from '@clippy/client/lean';
import { connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import { coloredPatch } from './diff-color.js';
import { localPatch } from './diff-local.js';

interface DiffArgs extends CommonArgs {
  session: string;
  paths?: string[];
  stat?: boolean;
  'name-only'?: boolean;
  json?: boolean;
}

/** Whether to colour: a terminal, and no NO_COLOR (no-color.org). */
function wantColor(): boolean {
  return process.stdout.isTTY === true && !process.env.NO_COLOR;
}

/**
 * The session's patch made here (diff-local.ts) and printed; false when its worktree is not on
 * this machine, or the daemon is one without `get_worktree`: the daemon's `diff` then.
 */
async function printedHere(
  client: ClippyClient,
  session: string,
  paths: string[] | undefined,
): Promise<boolean> {
  let found;
  try {
    found = await client.request('get_worktree', { session });
  } catch (err) {
    if (err instanceof BrokerError && err.code === 'unknown_type') return false;
    throw err;
  }
  const color = wantColor();
  const out = await localPatch(found.worktree, found.object_format, { paths, color });
  if (!out) return false;
  if (out.length > 0) process.stdout.write(Buffer.concat(out));
  return true;
}

/** `clippy diff S`: a session's changes in its worktree against its base (docs/worktrees.md). */
const command: CommandModule<object, DiffArgs> = {
  command: 'diff <session> [paths..]',
  describe: "A session's changes in its worktree: commits, uncommitted and new files",
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .positional('paths', {
        type: 'string',
        describe: 'only these files (paths in the repository)',
      })
      .option('stat', {
        type: 'boolean',
        describe: 'a line per file with its counts (git diff --stat)',
      })
      .option('name-only', { type: 'boolean', describe: 'the paths alone (git diff --name-only)' })
      .option('json', {
        type: 'boolean',
        describe:
          'print the protocol answer (files with hunks; with --stat or --name-only without)',
      })
      .conflicts('stat', 'name-only')
      .example('clippy diff writer', 'what writer changed, as git diff shows it')
      .example('clippy diff writer --stat', 'which files, how much') as never,
  handler: async (argv) => {
    const patch = !argv.stat && !argv['name-only'];
    const paths = argv.paths && argv.paths.length > 0 ? argv.paths.map(String) : undefined;
    const { client, remote } = await connectForCommand(argv);
    try {
      // Printed, on this machine: git runs here and its output is printed as it comes.
      if (patch && !argv.json && !remote && (await printedHere(client, argv.session, paths)))
        return;
      // Printed, the patch comes as one string: decoding it is nothing next to its lines one by one.
      const detail = !patch ? 'files' : argv.json ? 'patch' : 'text';
      const answer = await client.request(
        'diff',
        { session: argv.session, detail, ...(paths ? { paths } : {}) },
        // A large repository's diff takes what it takes: the daemon bounds git itself.
        { timeoutMs: 0 },
      );
      if (argv.json) {
        process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
        return;
      }
      if (patch) {
        const text = answer.text ?? '';
        if (text) process.stdout.write(wantColor() ? coloredPatch(text) : text);
      } else {
        const lines = argv.stat
          ? diffStatLines(answer.files, answer.totals)
          : diffNameLines(answer.files);
        if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (answer.truncated) {
        process.stderr.write(
          `clippy: the diff passes 8 MiB: the later files are listed without their changes (clippy diff ${argv.session} PATH shows one)\n`,
        );
      }
    } finally {
      await client.close();
    }
  },
};

export default command;
