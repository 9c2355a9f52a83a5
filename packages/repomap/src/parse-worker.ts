// Worker thread: parses batches of files so large trees use every core.
import { parentPort } from 'node:worker_threads';
import { processFile, type FileJob } from './process-file.js';

interface Batch {
  id: number;
  jobs: FileJob[];
  maxFileBytes: number;
}

parentPort?.on('message', (batch: Batch) => {
  void (async () => {
    const results = [];
    for (const job of batch.jobs) results.push(await processFile(job, batch.maxFileBytes));
    parentPort?.postMessage({ id: batch.id, results });
  })();
});
