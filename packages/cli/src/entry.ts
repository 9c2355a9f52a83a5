import { endQuietlyOnBrokenPipe } from './broken-pipe.js';
import { runComplete } from './completion/complete.js';
import { runFast } from './fast.js';
import { cliVersion } from './cli-version.js';
import { loadBundle } from './load-module.js';

type RunModule = typeof import('./run.js');

/**
 * What `bin/clippy` runs, bundled into one CommonJS file (dist/clippy.cjs): node starts a
 * CommonJS script some 50 ms sooner than an ES module. The common commands run from here (see
 * fast.ts), and so does `__complete`, which the completion scripts run on every TAB; every
 * other command line goes to the full CLI (run.ts, yargs), bundled too (dist/cli.cjs, by
 * scripts/bundle.mjs) and loaded only then.
 */
async function main(argv: string[]): Promise<void> {
  endQuietlyOnBrokenPipe();
  if (argv[0] === '__complete') {
    await runComplete(argv.slice(1));
    return;
  }
  // What yargs' --version prints (the CLI package's version), without loading yargs for it.
  if (argv.length === 1 && argv[0] === '--version') {
    process.stdout.write(`${cliVersion()}\n`);
    return;
  }
  const code = await runFast(argv);
  if (code !== undefined) {
    process.exitCode = code;
    return;
  }
  process.exitCode = await loadBundle<RunModule>('cli.cjs').runCli(argv);
}

void main(process.argv.slice(2));
