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
/** Batches each worker holds at once: one being parsed, one waiting. */
const WORKER_PREFETCH = 2;
/**
 * Batches each worker is given at start: enough (with BATCH_BYTES) to keep it busy while the
 * main thread does its own start-up work (loading the tokenizer) and cannot answer messages.
 */
const WORKER_PREFETCH_AT_START = 4;
/** Files per message: large enough to amortise messaging, small enough to balance load. */
const BATCH_SIZE = 32;
/** Bytes per message (~100 ms of parsing): big files travel alone so threads finish together. */
const BATCH_BYTES = 256 * 1024;

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
 * Batches, largest files first (so that no thread is left parsing one big file at the end), of
 * at most BATCH_SIZE files and BATCH_BYTES bytes (a bigger file is a batch of its own).
 */
function makeBatches(jobs: FileJob[]): { id: number; at: number[]; jobs: FileJob[] }[] {
  const order = jobs.map((_, i) => i).sort((a, b) => jobs[b]!.size - jobs[a]!.size || a - b);
  const batches: { id: number; at: number[]; jobs: FileJob[] }[] = [];
  let at: number[] = [];
  let bytes = 0;
  const flush = () => {
    if (at.length) batches.push({ id: batches.length, at, jobs: at.map((i) => jobs[i]!) });
    at = [];
    bytes = 0;
  };
  for (const i of order) {
    const size = jobs[i]!.size;
    if (at.length && (at.length >= BATCH_SIZE || bytes + size > BATCH_BYTES)) flush();
    at.push(i);
    bytes += size;
  }
  flush();
  return batches;
}

/**
 * Parses jobs on `count` worker threads and on this thread, all taking batches from one queue;
 * results come back in job order. `beforeLocal` runs on this thread once the workers have work,
 * before this thread starts parsing (start-up work that would otherwise come after parsing).
 */
export async function parseInWorkers(
  jobs: FileJob[],
  maxFileBytes: number,
  count: number,
  onDone: (n: number) => void,
  beforeLocal?: () => void,
): Promise<ProcessedFile[]> {
  const results: ProcessedFile[] = new Array(jobs.length);
  const batches = makeBatches(jobs);
  let next = 0;
  const workers: Worker[] = [];
  const runWorker = (w: Worker) =>
    new Promise<void>((resolve, reject) => {
      // Batches sent and not yet answered: two per worker, so that it never idles waiting for
      // the main thread (busy parsing its own batch) to hand it the next one.
      const inFlight = new Set<number>();
      const feed = (upTo: number) => {
        while (inFlight.size < upTo && next < batches.length) {
          const b = batches[next++]!;
          inFlight.add(b.id);
          w.postMessage({ id: b.id, jobs: b.jobs, maxFileBytes });
        }
        if (inFlight.size === 0) resolve();
      };
      w.on('message', (msg: { id: number; results: ProcessedFile[] }) => {
        const b = batches[msg.id]!;
        inFlight.delete(msg.id);
        msg.results.forEach((r, k) => (results[b.at[k]!] = r));
        onDone(msg.results.length);
        feed(WORKER_PREFETCH);
      });
      w.on('error', reject);
      w.on('exit', (code) => {
        if (inFlight.size > 0) reject(new Error(`parser worker exited with code ${code}`));
      });
      feed(WORKER_PREFETCH_AT_START);
    });
  const runLocal = async () => {
    const { processFile } = await import('./process-file.js');
    for (let b = batches[next++]; b; b = batches[next++]) {
      for (let k = 0; k < b.jobs.length; k++) {
        results[b.at[k]!] = await processFile(b.jobs[k]!, maxFileBytes);
      }
      onDone(b.jobs.length);
      // Let worker messages in: parsing here is synchronous, and without this turn of the
      // event loop the main thread would take every batch while the workers wait.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  try {
    const running: Promise<void>[] = [];
    for (let i = 0; i < Math.min(count, batches.length); i++) {
      const w = startWorker();
      workers.push(w);
      running.push(runWorker(w));
    }
    beforeLocal?.();
    running.push(runLocal());
    await Promise.all(running);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
