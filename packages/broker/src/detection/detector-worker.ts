// The detector worker thread: line detection reads every output byte (ANSI stripping, line
// splitting, prompt matching), and on the main thread that work would slow the forwarding of
// output to clients. The work itself is DetectorHost's; this file only binds it to the port.
import { parentPort } from 'node:worker_threads';
import { DetectorHost } from './detector-host.js';
import type { WorkerRequest, WorkerReply } from './worker-detector.js';

const port = parentPort!;
const host = new DetectorHost((reply: WorkerReply) => port.postMessage(reply));
port.on('message', (m: WorkerRequest) => host.handle(m));
