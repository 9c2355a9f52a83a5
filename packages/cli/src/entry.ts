import { endQuietlyOnBrokenPipe } from './broken-pipe.js';
import { runComplete } from './completion/complete.js';
import { runFast } from './fast.js';
import { loadModule } from './load-module.js';

/**
 * What `bin/clippy` runs, bundled into one CommonJS file (dist/clippy.cjs): node starts a
 * CommonJS script some 50 ms sooner than an ES module. The common commands run from here (see
 * fast.ts), and so does `__complete`, which the completion scripts run on every TAB; every
 * other command line goes to the full CLI (main.js, yargs).
 */
async function main(argv: string[]): Promise<void> {
  endQuietlyOnBrokenPipe();
  if (argv[0] === '__complete') {
    await runComplete(argv.slice(1));
    return;
  }
  const code = await runFast(argv);
  if (code !== undefined) {
    process.exitCode = code;
    return;
  }
  await loadModule('main.js');
}

void main(process.argv.slice(2));
