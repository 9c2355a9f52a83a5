import yargs from 'yargs';
import { COMMAND_NAMES, loadCommands } from './commands/index.js';
import { CliError, reportError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { bindFreeTextValues } from './free-text-options.js';

/**
 * Runs the CLI with the given arguments and resolves to the process exit code.
 * Commands set `process.exitCode` themselves (or throw a CliError); yargs usage
 * errors map to EXIT.usage.
 */
export async function runCli(argv: string[]): Promise<number> {
  argv = hostAfterCommand(argv);
  const first = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  let commands;
  try {
    commands = await loadCommands(first);
  } catch (err) {
    return reportError(err);
  }
  const parser = yargs(bindFreeTextValues(argv, first))
    .scriptName('clippy')
    .usage(
      '$0 <command> [options]\n\nCatch every completed agent turn in your terminals and relay it.',
    )
    .command(commands)
    .demandCommand(1, 'Name a command: see `clippy --help`.')
    .recommendCommands()
    .strict()
    .help()
    .alias('h', 'help')
    .version()
    .epilogue('Exit codes and more: docs/cli.md')
    .fail((msg, err) => {
      // yargs' own errors (YError: a missing value, a value an option's check refused) are
      // usage errors, said as such; any other error is a command's own.
      if (err && err.name !== 'YError') throw err;
      msg ??= err?.message ?? '';
      // Throwing stops yargs here: the command's handler must not run on a bad command line.
      // A first word that names no command: say so (yargs would call it an unknown argument).
      const unknown = first !== undefined && !COMMAND_NAMES.includes(first);
      const text = msg.startsWith('Did you mean')
        ? `unknown command '${first}'. ${msg}`
        : unknown
          ? `unknown command '${first}'`
          : msg;
      throw new CliError(`${text}\nRun 'clippy --help' for usage.`, EXIT.usage);
    })
    .wrap(Math.min(100, process.stdout.columns ?? 100));
  skipHelpSnapshot(parser);
  try {
    await parser.parseAsync();
  } catch (err) {
    return reportError(err);
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
}

interface UsageInstance {
  cacheHelpMessage?: () => void;
}

/**
 * yargs renders the command's whole help text as it starts the command's handler (laying out
 * every line: some 30 ms of each command), kept for a handler that would show help later. No
 * handler here does, and the fail handler above prints no help: the snapshot is not taken.
 * `--help` and usage errors render help as before, from the parser's state at that moment.
 */
function skipHelpSnapshot(parser: object): void {
  const internal = (
    parser as { getInternalMethods?: () => { getUsageInstance?: () => UsageInstance } }
  ).getInternalMethods?.();
  const usage = internal?.getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/**
 * `clippy --host H <command> …` (ssh's order: the machine first) is the command's own `--host`
 * option: moved behind the command's name, so that name is found and only its module loads.
 */
export function hostAfterCommand(argv: string[]): string[] {
  const a = argv[0];
  if (a === undefined) return argv;
  const taken = a === '--host' ? 2 : a.startsWith('--host=') ? 1 : 0;
  if (taken === 0 || argv.length <= taken || argv[taken]!.startsWith('-')) return argv;
  return [argv[taken]!, ...argv.slice(0, taken), ...argv.slice(taken + 1)];
}
