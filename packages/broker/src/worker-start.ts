import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the broker's worker thread whose module is `base` plus `.js` (the built broker) or
 * `.ts` (running from TypeScript sources, as tests do): then a bootstrap registers tsx in the
 * thread first, since Node 20 does not pass loader hooks to workers. Either way the same worker
 * code runs, so tests take the production path. (repomap has its own copy: it and the broker
 * share no package that may touch the file system or start threads.)
 */
export function startWorker(base: URL): Worker {
  const js = new URL(`${base.href}.js`);
  if (fs.existsSync(fileURLToPath(js))) return new Worker(js);
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const ts = `${base.href}.ts`;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(ts)}); });`;
  // Our packages from their sources too (the `source` condition), as in the thread that started it.
  return new Worker(boot, { eval: true, execArgv: [...process.execArgv, '--conditions=source'] });
}
