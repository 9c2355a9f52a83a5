import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DAEMON_NODE_FLAGS } from '@clippy/protocol';

/**
 * Starts the broker's worker thread whose module is `base` plus `.mjs` (the built broker's
 * bundle of it, scripts/bundle.mjs: one file to read, a quicker start), `.js` (tsc's build) or
 * `.ts` (running from TypeScript sources, as tests do): then a bootstrap registers tsx in the
 * thread first, since Node 20 does not pass loader hooks to workers. Each way the same worker
 * code runs, so tests take the production path. (repomap has its own copy: it and the broker
 * share no package that may touch the file system or start threads.)
 */
export function startWorker(base: URL): Worker {
  for (const ext of ['.mjs', '.js']) {
    const built = new URL(`${base.href}${ext}`);
    if (fs.existsSync(fileURLToPath(built))) return new Worker(built);
  }
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const ts = `${base.href}.ts`;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(ts)}); });`;
  // Our packages from their sources too (the `source` condition), as in the thread that started
  // it. The daemon's V8 flags apply to every thread already, and a worker refuses them.
  const execArgv = process.execArgv.filter((a) => !DAEMON_NODE_FLAGS.includes(a));
  return new Worker(boot, { eval: true, execArgv: [...execArgv, '--conditions=source'] });
}
