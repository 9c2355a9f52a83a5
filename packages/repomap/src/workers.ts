import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileJob, ProcessedFile } from './process-file.js';

/** Below this many files to parse, starting threads (each loads grammars) costs more than it saves. */
export const WORKER_MIN_FILES = 400;
/** More threads than this only add grammar-loading cost. */
const MAX_WORKERS = 8;
/** Files per message: large enough to amortise messaging, small enough to balance load. */
const BATCH_SIZE = 32;

/** Worker threads to start; the main thread parses too, so 'auto' uses one fewer than cores. */
export function workerCountFor(setting: number | 'auto' | undefined, jobs: number): number {
  if (typeof setting === 'number') return Math.max(0, Math.floor(setting));
  if (jobs < WORKER_MIN_FILES) return 0;
  return Math.min(MAX_WORKERS, Math.max(1, os.availableParallelism() - 1));
}

/**
 * The worker: compiled JS beside this file; when running from TypeScript sources (tests), a
 * bootstrap registers tsx in the thread first (Node 20 does not pass loader hooks to workers).
 */
function startWorker(): Worker {
  const js = new URL('./parse-worker.js', import.meta.url);
  if (fs.existsSync(fileURLToPath(js))) return new Worker(js);
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const ts = new URL('./parse-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(ts)}); });`;
  return new Worker(boot, { eval: true });
}

/**
 * Parses jobs on `count` worker threads and on this thread, all taking batches from one queue;
 * results come back in job order.
 */
export async function parseInWorkers(
  jobs: FileJob[],
  maxFileBytes: number,
  count: number,
  onDone: (n: number) => void,
): Promise<ProcessedFile[]> {
  const results: ProcessedFile[] = new Array(jobs.length);
  const batches: { id: number; start: number; jobs: FileJob[] }[] = [];
  for (let i = 0; i < jobs.length; i += BATCH_SIZE) {
    batches.push({ id: batches.length, start: i, jobs: jobs.slice(i, i + BATCH_SIZE) });
  }
  let next = 0;
  const workers: Worker[] = [];
  const runWorker = (w: Worker) =>
    new Promise<void>((resolve, reject) => {
      let current: (typeof batches)[number] | undefined;
      const feed = () => {
        current = batches[next++];
        if (current) w.postMessage({ id: current.id, jobs: current.jobs, maxFileBytes });
        else resolve();
      };
      w.on('message', (msg: { id: number; results: ProcessedFile[] }) => {
        const b = batches[msg.id]!;
        msg.results.forEach((r, k) => (results[b.start + k] = r));
        onDone(msg.results.length);
        feed();
      });
      w.on('error', reject);
      w.on('exit', (code) => {
        if (current && results[current.start] === undefined) {
          reject(new Error(`parser worker exited with code ${code}`));
        }
      });
      feed();
    });
  const runLocal = async () => {
    const { processFile } = await import('./process-file.js');
    for (let b = batches[next++]; b; b = batches[next++]) {
      for (let k = 0; k < b.jobs.length; k++) {
        results[b.start + k] = await processFile(b.jobs[k]!, maxFileBytes);
      }
      onDone(b.jobs.length);
    }
  };
  try {
    const running: Promise<void>[] = [];
    for (let i = 0; i < Math.min(count, batches.length); i++) {
      const w = startWorker();
      workers.push(w);
      running.push(runWorker(w));
    }
    running.push(runLocal());
    await Promise.all(running);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
