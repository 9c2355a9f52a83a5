import {
  INPUT_POST_DELAY_MS,
  PIPELINE_POST_INTERVAL_MS,
  PIPELINE_WORKER_IDLE_MS,
} from '../constants.js';
import { startWorker } from '../worker-start.js';
import type { FromWorker, Reply, Step, ToWorker } from './messages.js';

/** The worker's entry module (`.js` built, `.ts` in sources: see startWorker). */
const WORKER_ENTRY = new URL('./worker/entry', import.meta.url);

/** A session's pipeline as the worker client routes to it. */
export interface WorkerSession {
  onReply(reply: Reply): void;
  /** The worker thread died: what it held of the session (screen, detector) is gone. */
  onWorkerLost(why: string): void;
}

/** A step without its bytes, as a session's pipeline queues it. */
type BareStep = Exclude<Step, { op: 'out' | 'in' }>;

/** What the client needs of the worker thread (tests give one that runs the work in-process). */
export interface WorkerPort {
  postMessage(message: ToWorker, transfer: ArrayBuffer[]): void;
  on(event: 'message', listener: (message: FromWorker) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
  unref(): void;
  terminate(): Promise<number>;
}

/**
 * The main thread's end of the pipeline worker: starts the one worker thread with the first
 * session and stops it PIPELINE_WORKER_IDLE_MS after the last (an idle daemon holds no thread;
 * 100 sessions must not cost 100 V8 isolates), and carries every session's steps to it in
 * order — all of them queued
 * in one turn of the event loop go in one message, their bytes in one transferred buffer.
 * Input waits a moment for the output it causes (INPUT_POST_DELAY_MS), so that a keystroke and
 * its echo wake the worker once.
 */
export class WorkerClient {
  private worker: WorkerPort | null = null;
  private readonly sessions = new Map<number, WorkerSession>();
  private nextId = 1;
  private steps: Step[] = [];
  private data: Uint8Array[] = [];
  private dataBytes = 0;
  private scheduled: NodeJS.Immediate | null = null;
  /** The next message waits for PIPELINE_POST_INTERVAL_MS after the last (output only). */
  private paced: NodeJS.Timeout | null = null;
  private lastPostAt = -Infinity;
  /** Steps queued that must not wait for the pace (input, requests, opening a session). */
  private urgent = false;
  /** Sessions whose input waits for its echo, and the wait's bound. */
  private readonly awaitingEcho = new Set<number>();
  private echoWait: NodeJS.Timeout | null = null;
  /** Stops the worker once no session came back to it (see PIPELINE_WORKER_IDLE_MS). */
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly start: () => WorkerPort = () => startWorker(WORKER_ENTRY)) {}

  /** Starts routing to `session`; returns its ID for steps. */
  register(session: WorkerSession): number {
    const id = this.nextId++;
    this.sessions.set(id, session);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.ensureWorker();
    return id;
  }

  /** The session is gone: its model is closed, and the thread stopped a while after the last. */
  unregister(id: number): void {
    if (!this.sessions.delete(id)) return;
    this.awaitingEcho.delete(id);
    this.queue({ op: 'close', id });
    if (this.sessions.size > 0 || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.sessions.size > 0) return;
      this.clearQueue();
      const w = this.worker;
      this.worker = null;
      void w?.terminate();
    }, PIPELINE_WORKER_IDLE_MS);
    this.idleTimer.unref();
  }

  queue(step: BareStep): void {
    this.steps.push(step);
    this.urgent = true;
    this.schedule();
  }

  /** Output bytes of session `id`, read at `now` (views: copied when the message goes). */
  output(id: number, chunks: readonly Uint8Array[], bytes: number, now: number): void {
    this.steps.push({ op: 'out', id, at: this.dataBytes, length: bytes, now });
    for (const c of chunks) this.data.push(c);
    this.dataBytes += bytes;
    // The echo of input that waits: both go now.
    if (this.awaitingEcho.delete(id) && this.awaitingEcho.size === 0) this.endEchoWait();
    this.schedule();
  }

  /** Input of session `id` (copied: the caller's buffer may be reused). */
  input(id: number, data: Uint8Array, now: number): void {
    this.steps.push({ op: 'in', id, at: this.dataBytes, length: data.length, now });
    this.data.push(data.slice());
    this.dataBytes += data.length;
    this.urgent = true;
    this.awaitingEcho.add(id);
    this.echoWait ??= setTimeout(() => {
      this.echoWait = null;
      this.awaitingEcho.clear();
      this.send();
    }, INPUT_POST_DELAY_MS);
  }

  private endEchoWait(): void {
    if (this.echoWait) clearTimeout(this.echoWait);
    this.echoWait = null;
  }

  private schedule(): void {
    // While input waits for its echo, everything joins it (the wait is short).
    if (this.scheduled || this.awaitingEcho.size > 0) return;
    // Output right after the last message waits out the pace (a flood: see the constant).
    const wait = this.lastPostAt + PIPELINE_POST_INTERVAL_MS - performance.now();
    if (!this.urgent && wait > 0) {
      this.paced ??= setTimeout(() => {
        this.paced = null;
        if (this.awaitingEcho.size === 0) this.send();
      }, wait);
      return;
    }
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      if (this.awaitingEcho.size === 0) this.send();
    });
  }

  /** Posts every queued step, their bytes copied into one transferred buffer. */
  private send(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.paced) clearTimeout(this.paced);
    this.paced = null;
    this.endEchoWait();
    if (this.steps.length === 0) return;
    this.urgent = false;
    this.lastPostAt = performance.now();
    let data: ArrayBuffer | null = null;
    if (this.dataBytes > 0) {
      const bytes = new Uint8Array(this.dataBytes);
      let at = 0;
      for (const c of this.data) {
        bytes.set(c, at);
        at += c.length;
      }
      data = bytes.buffer;
    }
    const message: ToWorker = { steps: this.steps, data };
    this.steps = [];
    this.data = [];
    this.dataBytes = 0;
    this.worker?.postMessage(message, data ? [data] : []);
  }

  private clearQueue(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.paced) clearTimeout(this.paced);
    this.paced = null;
    this.urgent = false;
    this.endEchoWait();
    this.awaitingEcho.clear();
    this.steps = [];
    this.data = [];
    this.dataBytes = 0;
  }

  private ensureWorker(): void {
    if (this.worker) return;
    const worker = this.start();
    // The daemon's life is its sockets and sessions; the worker never keeps it up.
    worker.unref();
    worker.on('message', (m: FromWorker) => {
      for (const reply of m.replies) this.sessions.get(reply.id)?.onReply(reply);
    });
    let failure = 'the pipeline worker exited';
    worker.on('error', (err) => {
      failure = `the pipeline worker failed: ${err.stack ?? String(err)}`;
    });
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.clearQueue();
      const sessions = [...this.sessions.values()];
      this.sessions.clear();
      for (const s of sessions) s.onWorkerLost(failure);
    });
    this.worker = worker;
  }
}

/** The daemon's one pipeline worker. */
export const workerClient = new WorkerClient();
