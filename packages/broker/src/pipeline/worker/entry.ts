// The pipeline worker thread: one per daemon, holding every session's screen model, flood
// compaction and turn detector, so that parsing output never competes with forwarding it on the
// main thread. The work itself is PipelineWorker's; this file only binds it to the port.
import { parentPort } from 'node:worker_threads';
import type { FromWorker, ToWorker } from '../messages.js';
import { PipelineWorker } from './pipeline-worker.js';

const port = parentPort!;
const worker = new PipelineWorker((message: FromWorker, transfer: ArrayBuffer[]) =>
  port.postMessage(message, transfer),
);
port.on('message', (message: ToWorker) => worker.handle(message));
