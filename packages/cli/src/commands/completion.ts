import type { CommandModule } from 'yargs';
import { INSTALL, SCRIPTS, SHELLS, type Shell } from '../completion/scripts.js';

interface CompletionArgs {
  shell: Shell;
}

/** `clippy completion bash|zsh|fish`: prints the shell's completion script. */
const command: CommandModule<object, CompletionArgs> = {
  command: 'completion <shell>',
  describe:
    'Print the completion script for bash, zsh or fish (commands, options, sessions, turns)',
  builder: (y) =>
    y
      .positional('shell', { choices: SHELLS, describe: 'the shell' })
      .usage(
        '$0 completion bash|zsh|fish\n\n' +
          'Prints a script that completes commands, options, session names and turn IDs (from ' +
          'the daemon already running; TAB never starts one). Install it once:\n' +
          SHELLS.map((s) => `  ${s}: ${INSTALL[s]}`).join('\n') +
          '\nthen open a new shell.',
      ) as never,
  handler: (argv) => {
    process.stdout.write(SCRIPTS[argv.shell]);
  },
};

export default command;
