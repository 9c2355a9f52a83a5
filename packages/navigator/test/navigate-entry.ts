// A small entry for the PTY tests: the real `clippy navigate` command module under yargs,
// without the rest of the CLI (whose other commands need a built broker).
import yargs from 'yargs';
import navigateCommand from '../../cli/src/commands/navigate.js';
import { reportError } from '../../cli/src/errors.js';

let usageError = false;
try {
  await yargs(process.argv.slice(2))
    .scriptName('clippy')
    .command(navigateCommand)
    .strict()
    .fail((msg, err) => {
      if (err) throw err;
      usageError = true;
      process.stderr.write(`clippy: ${msg}\n`);
    })
    .parseAsync();
  if (usageError) process.exitCode = 64;
} catch (err) {
  process.exitCode = reportError(err);
}
