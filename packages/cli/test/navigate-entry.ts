// A small entry for navigator's PTY tests (testkit's `sources.navigateEntry`): the real
// `clippy navigate` command module under yargs, without the rest of the CLI (whose other
// commands need a built broker). It lives in cli, whose code it runs: navigator is below cli.
import yargs from 'yargs';
import navigateCommand from '../src/commands/navigate.js';
import { reportError } from '../src/errors.js';

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
