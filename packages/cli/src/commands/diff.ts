import type { CommandModule } from 'yargs';
import { diffNameLines, diffStatLines } from '@clippy/protocol';
import { withClient, withSocket, type CommonArgs } from '../connect.js';

interface DiffArgs extends CommonArgs {
  session: string;
  paths?: string[];
  stat?: boolean;
  'name-only'?: boolean;
  json?: boolean;
}

/** SGR colours of a patch, as git's defaults: meta bold, hunk header cyan, lines green and red. */
const COLOR = {
  meta: '\x1b[1m',
  frag: '\x1b[36m',
  add: '\x1b[32m',
  del: '\x1b[31m',
  off: '\x1b[m',
};

/** Colours one line of a patch (a hunk's line by its first character, else a header line). */
function colored(line: string, inHunk: boolean): string {
  if (line.startsWith('@@')) return `${COLOR.frag}${line}${COLOR.off}`;
  if (!inHunk) return `${COLOR.meta}${line}${COLOR.off}`;
  if (line.startsWith('+')) return `${COLOR.add}${line}${COLOR.off}`;
  if (line.startsWith('-')) return `${COLOR.del}${line}${COLOR.off}`;
  return line;
}

/**
 * Colours a patch as git prints it: a file's header runs from its `diff --git` line to its first
 * hunk; a hunk's lines start with ` `, `+`, `-` or `\` (a header line never does once in a hunk).
 */
export function coloredPatch(text: string): string {
  let inHunk = false;
  const lines = text.split('\n');
  const last = lines.pop(); // '' after the final newline
  const out = lines.map((line) => {
    if (line.startsWith('diff --git ')) inHunk = false;
    else if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && !/^[ +\-\\]/u.test(line)) inHunk = false;
    return colored(line, inHunk);
  });
  return `${out.join('\n')}\n${last ?? ''}`;
}

/** Whether to colour: a terminal, and no NO_COLOR (no-color.org). */
function wantColor(): boolean {
  return process.stdout.isTTY === true && !process.env.NO_COLOR;
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
    // Printed, the patch comes as one string: decoding it is nothing next to its lines one by one.
    const detail = !patch ? 'files' : argv.json ? 'patch' : 'text';
    const answer = await withClient(argv, (c) =>
      c.request(
        'diff',
        {
          session: argv.session,
          detail,
          ...(argv.paths && argv.paths.length > 0 ? { paths: argv.paths.map(String) } : {}),
        },
        // A large repository's diff takes what it takes: the daemon bounds git itself.
        { timeoutMs: 0 },
      ),
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
  },
};

export default command;
