import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DetectorEvent, Preset } from '@clippy/turns';

/** Main thread → detector worker. */
export type WorkerRequest =
  | { op: 'open'; id: number; preset: Preset; maxTurnBytes: number }
  | { op: 'out' | 'in'; id: number; data: Uint8Array; now: number }
  | { op: 'close'; id: number };

/** Detector worker → main thread: a session's events, or a failure inside its detector. */
export type WorkerReply = { id: number; events: DetectorEvent[] } | { id: number; error: string };

type Listener = (reply: WorkerReply) => void;

/**
 * Output bytes gathered before they are posted to the worker at once: one message per batch
 * instead of one per PTY read keeps the main thread's cost of detection to a copy and a transfer.
 */
const OUTPUT_BATCH_BYTES = 256 * 1024;

/**
 * Shortest interval between two posts of output: a prompt after a pause is posted at once, a
 * flood only every few milliseconds (measured: a post per 4 KB read cost the main thread 0.27 s
 * per 64 MB, and as many wake-ups of the worker). Small next to the 20 ms turn latency target.
 */
const OUTPUT_POST_INTERVAL_MS = 2;

/** The worker script beside this file: present in the built broker (dist), absent in src. */
const WORKER_URL = new URL('./detector-worker.js', import.meta.url);

let worker: Worker | null = null;
let nextId = 1;
const listeners = new Map<number, Listener>();

/**
 * Whether line detection can run in the worker: only the built broker ships its script (tests
 * that run the broker from source detect on the main thread), and CLIPPY_DETECTOR_WORKER=off
 * turns it off.
 */
export function workerAvailable(): boolean {
  return process.env.CLIPPY_DETECTOR_WORKER !== 'off' && existsSync(fileURLToPath(WORKER_URL));
}

function sharedWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_URL);
  // The daemon's life is its sockets and sessions; an idle detector worker never keeps it up.
  w.unref();
  w.on('message', (reply: WorkerReply) => listeners.get(reply.id)?.(reply));
  w.on('error', (err) => {
    for (const l of listeners.values()) l({ id: 0, error: err.stack ?? String(err) });
  });
  w.on('exit', () => {
    if (worker === w) worker = null;
  });
  worker = w;
  return w;
}

/**
 * A session's line-preset detector living in the shared detector worker: output and input
 * are posted in order, events come back asynchronously to `onReply`.
 */
export class RemoteDetector {
  private readonly id = nextId++;
  private readonly worker: Worker;
  private closed = false;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private pendingAt = 0;
  /** The scheduled post of pending output: a timer during floods, an immediate otherwise. */
  private flushTimer: { timeout: NodeJS.Timeout } | { immediate: NodeJS.Immediate } | null = null;
  private lastPostAt = 0;

  constructor(preset: Preset, maxTurnBytes: number, onReply: Listener) {
    this.worker = sharedWorker();
    listeners.set(this.id, onReply);
    this.post({ op: 'open', id: this.id, preset, maxTurnBytes });
  }

  onOutput(chunk: Uint8Array, now: number): void {
    if (this.closed) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.pendingAt = now;
    if (this.pendingBytes >= OUTPUT_BATCH_BYTES) this.flush();
    else if (!this.flushTimer) {
      const wait = this.lastPostAt + OUTPUT_POST_INTERVAL_MS - performance.now();
      const run = () => {
        this.flushTimer = null;
        this.flush();
      };
      this.flushTimer =
        wait > 0 ? { timeout: setTimeout(run, wait) } : { immediate: setImmediate(run) };
    }
  }

  onInput(data: Uint8Array, now: number): void {
    // Output that came before this input reaches the detector before it.
    this.flush();
    this.post({ op: 'in', id: this.id, data, now });
  }

  /** Posts the gathered output as one buffer, transferred (not copied) to the worker. */
  private flush(): void {
    this.cancelFlush();
    if (this.pendingBytes === 0 || this.closed) return;
    this.lastPostAt = performance.now();
    const data = new Uint8Array(this.pendingBytes);
    let at = 0;
    for (const c of this.pending) {
      data.set(c, at);
      at += c.length;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.worker.postMessage(
      { op: 'out', id: this.id, data, now: this.pendingAt } satisfies WorkerRequest,
      [data.buffer],
    );
  }

  private cancelFlush(): void {
    if (!this.flushTimer) return;
    if ('timeout' in this.flushTimer) clearTimeout(this.flushTimer.timeout);
    else clearImmediate(this.flushTimer.immediate);
    this.flushTimer = null;
  }

  dispose(): void {
    if (this.closed) return;
    this.cancelFlush();
    this.pending = [];
    this.pendingBytes = 0;
    this.closed = true;
    listeners.delete(this.id);
    this.post({ op: 'close', id: this.id });
  }

  private post(m: WorkerRequest): void {
    if (!this.closed || m.op === 'close') this.worker.postMessage(m);
  }
}
