import { runFast } from './fast.js';

/**
 * What `bin/clippy` runs, bundled into one CommonJS file (dist/clippy.cjs): node starts a
 * CommonJS script some 50 ms sooner than an ES module. The common commands run from here (see
 * fast.ts); every other command line goes to the full CLI (main.js, yargs).
 */
void runFast(process.argv.slice(2)).then(async (code) => {
  if (code !== undefined) {
    process.exitCode = code;
    return;
  }
  await import(new URL('./main.js', import.meta.url).href);
});
