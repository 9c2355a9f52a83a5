import path from 'node:path';
import type { CommandModule } from 'yargs';
import { BrokerError, WorktreeNameSchema, type WorktreeInfo } from '@clippy/protocol';
// The table alone, not the turn engine: `new` must not load zod and the regex engine for its help.
import { BUILTIN_PRESETS } from '@clippy/turns/builtin-presets';
import {
  DETACH_KEY_OPTION,
  DETACH_OPTION,
  beforeStart,
  callerEnvironment,
  startThenAttach,
  terminalSize,
  type StartArgs,
} from '../attach/start-session.js';
import { withSocket } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { DEFAULT_SESSION_TERM, resolveSessionTerm } from '../session-term.js';

interface NewArgs extends StartArgs {
  name?: string;
  cwd?: string;
  preset?: string;
  pattern?: string;
  'session-env'?: boolean;
  term?: string;
  persist?: boolean;
  'agent-channel'?: boolean;
  worktree?: string;
  base?: string;
  command?: string[];
}

/** Broker answers that mean the command line was wrong (docs/cli.md: exit 64). */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'unknown_preset',
  'invalid_pattern',
  'invalid_config',
]);

/** `main` of `refs/heads/main`: a ref as a person names it. */
function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|remotes|tags)\//u, '');
}

/** The line `new --worktree` tells on stderr: where the session works, on what branch. */
export function worktreeLine(name: string, w: WorktreeInfo): string {
  const from = w.base_ref
    ? `${shortRef(w.base_ref)} (${w.base.slice(0, 12)})`
    : w.base.slice(0, 12);
  return `clippy: ${name} works in ${w.path}, on branch ${w.branch} from ${from}`;
}

/** Runs the spawn request, turning an unknown preset or a bad pattern into a usage error. */
async function usageErrors<R>(fn: () => Promise<R>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BrokerError && USAGE_CODES.has(err.code))
      throw new CliError(err.message, EXIT.usage);
    throw err;
  }
}

/** `clippy new`: start a command in a new session owned by the daemon, then attach to it. */
const command: CommandModule<object, NewArgs> = {
  command: 'new [command..]',
  describe: 'Start a command in a new session (then attach, unless -d)',
  builder: (y) =>
    withSocket(y)
      .usage('$0 new [options] [-- COMMAND ARGS...]\n\nWithout a command: $SHELL (else /bin/sh).')
      .positional('command', {
        type: 'string',
        array: true,
        describe: 'command and arguments (after --)',
      })
      .option('name', {
        type: 'string',
        requiresArg: true,
        describe: 'session name (unique among live sessions)',
      })
      .option('cwd', {
        type: 'string',
        requiresArg: true,
        describe: 'working directory (default: the current one)',
      })
      .option('detach', DETACH_OPTION)
      .option('preset', {
        type: 'string',
        requiresArg: true,
        describe: `turn preset: ${Object.keys(BUILTIN_PRESETS).join(', ')} (default generic), or one from presets.json`,
      })
      .option('pattern', {
        type: 'string',
        requiresArg: true,
        describe: 'custom prompt regex instead of a preset',
      })
      .option('session-env', {
        type: 'boolean',
        describe:
          'set CLIPPY_SESSION_ID to the session’s ID in its environment (default; --no-session-env leaves it out)',
      })
      .option('detach-key', DETACH_KEY_OPTION)
      .option('term', {
        type: 'string',
        requiresArg: true,
        describe: `the session's TERM (default: "term" in the config file, else ${DEFAULT_SESSION_TERM}; never the caller's)`,
      })
      .option('persist', {
        type: 'boolean',
        describe:
          'keep its turns on disk across daemon restarts (default: "persist" in the config file, else off; --no-persist overrides it)',
      })
      .option('agent-channel', {
        type: 'boolean',
        describe:
          'read the agent\'s own record of its turns (its hooks, notify, transcript: the exact Markdown answer, tokens, cost) when the preset names an agent (default: "agentChannels" in the config file, else on; --no-agent-channel reads the screen only)',
      })
      .option('json', { type: 'boolean', describe: 'with -d: print {session, name, pid} as JSON' })
      .option('worktree', {
        alias: 'w',
        type: 'string',
        describe:
          'run in a new git worktree of the repository you are in, on a new branch clippy/NAME (NAME: default the session name, else one made from the command); docs/worktrees.md',
      })
      .option('base', {
        type: 'string',
        requiresArg: true,
        describe:
          'with --worktree: the commit, branch or tag the branch starts from (default HEAD)',
      })
      .conflicts('preset', 'pattern')
      .parserConfiguration({ 'populate--': true }) as never,
  handler: async (argv) => {
    const dashDash =
      ((argv as unknown as Record<string, unknown>)['--'] as string[] | undefined) ?? [];
    const words = [...(argv.command ?? []), ...dashDash].map(String);
    const [cmd, ...args] = words.length > 0 ? words : [process.env.SHELL || '/bin/sh'];
    if (argv.base !== undefined && argv.worktree === undefined) {
      throw new CliError('--base goes with --worktree (the branch it starts from)', EXIT.usage);
    }
    const worktreeName =
      argv.worktree === undefined || argv.worktree === '' ? undefined : String(argv.worktree);
    if (worktreeName !== undefined) {
      const checked = WorktreeNameSchema.safeParse(worktreeName);
      if (!checked.success) {
        throw new CliError(
          `--worktree '${worktreeName}': ${checked.error.issues[0]!.message}`,
          EXIT.usage,
        );
      }
    }
    // Refused before the session starts: nothing is left running behind the error.
    const detachKey = beforeStart(argv, 'new');
    const env = callerEnvironment();
    // The caller's environment, but TERM: the session outlives this terminal (docs/cli.md).
    env.TERM = resolveSessionTerm(argv.term);
    await startThenAttach(
      argv,
      detachKey,
      (client) =>
        usageErrors(() =>
          client.request(
            'spawn',
            {
              command: cmd!,
              args,
              cwd: argv.cwd ? path.resolve(argv.cwd) : process.cwd(),
              env,
              ...(argv.name ? { name: argv.name } : {}),
              ...terminalSize(),
              ...(argv.preset ? { preset: argv.preset } : {}),
              ...(argv.pattern ? { pattern: argv.pattern } : {}),
              ...(argv['session-env'] === false ? { session_env: false } : {}),
              ...(argv.persist !== undefined ? { persist: argv.persist } : {}),
              ...(argv['agent-channel'] !== undefined
                ? { agent_channel: argv['agent-channel'] }
                : {}),
              ...(argv.worktree !== undefined
                ? {
                    worktree: {
                      ...(worktreeName !== undefined ? { name: worktreeName } : {}),
                      ...(argv.base !== undefined ? { base: String(argv.base) } : {}),
                    },
                  }
                : {}),
            },
            // A checkout of a large repository takes what it takes: the daemon bounds git itself.
            argv.worktree !== undefined ? { timeoutMs: 0 } : undefined,
          ),
        ),
      (created) => {
        if (created.worktree && !argv.json) {
          process.stderr.write(`${worktreeLine(created.name, created.worktree)}\n`);
          for (const note of created.notes ?? []) process.stderr.write(`clippy: note: ${note}\n`);
        }
      },
    );
  },
};

export default command;
