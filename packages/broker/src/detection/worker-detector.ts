import type { Worker } from 'node:worker_threads';
import type { DetectorEvent, Preset } from '@clippy/turns';
import { DETECTOR_HOLD_BYTES, DETECTOR_RESUME_BYTES, DETECTOR_STALL_MS } from '../constants.js';
import { OutputRing, type RingSpan, type SharedRing } from './output-ring.js';
import { startWorker } from '../worker-start.js';

/** Main thread → detector worker. */
export type WorkerRequest =
  | { op: 'open'; id: number; preset: Preset; maxTurnBytes: number; cols?: number }
  /** The terminal's width changed (the echo of a long input wraps on it). */
  | { op: 'resize'; id: number; cols: number }
  | { op: 'out' | 'in'; id: number; data: Uint8Array; now: number }
  /** Output written to the session's ring (set up once with `ring`). */
  | { op: 'ring-out'; id: number; span: RingSpan; now: number }
  | { op: 'ring'; id: number; ring: SharedRing }
  | { op: 'close'; id: number }
  /** The open turn's text so far (TurnDetector.partialText), answered as `partial`. */
  | { op: 'partial'; id: number; req: number }
  /** Several of the above for one session, in order: one wake-up of the worker. */
  | { op: 'batch'; id: number; items: WorkerRequest[] };

/**
 * Detector worker → main thread: a session's events, a failure inside its detector, or (from
 * WorkerDetector itself) why the session's detection stopped for good.
 */
export type WorkerReply =
  | { id: number; events: DetectorEvent[] }
  | { id: number; error: string }
  | { id: number; stopped: string }
  | { id: number; partial: { req: number; text: string | null } };

/** Why detection stopped when the worker went away (its own error, if any, was reported first). */
export const WORKER_EXITED_REASON = 'turn detection stopped: the detector worker exited';

type Listener = (reply: WorkerReply) => void;

/** What a session hears of its detector: all but the answers to its own looks (`partial`). */
export type DetectorReply = Exclude<WorkerReply, { partial: unknown }>;

/** Where requests go: the shared detector worker (tests give a recorder). */
export interface DetectorPort {
  postMessage(message: WorkerRequest, transfer?: ArrayBuffer[]): void;
}

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

/**
 * Batches at least this large go through the session's shared ring; smaller ones (a prompt, an
 * echo) are posted as copies, so a quiet session never allocates a ring.
 */
const RING_MIN_BATCH_BYTES = 16 * 1024;

/**
 * How long input waits before it is posted, so that its echo goes in the same message: one
 * wake-up of the worker per keystroke instead of two (measured: about 0.1 ms of CPU per wake-up,
 * and on two cores every extra runnable thread lengthens the keystroke's tail latency).
 */
const INPUT_POST_DELAY_MS = 1;

/** Shared memory per busy session: four full batches, room for the worker to fall behind. */
const RING_BYTES = 4 * OUTPUT_BATCH_BYTES;

/** The worker's module beside this file (`.js` built, `.ts` in sources: see startWorker). */
const WORKER_MODULE = new URL('./detector-worker', import.meta.url);

let worker: Worker | null = null;
let nextId = 1;
const listeners = new Map<number, Listener>();
/** Detectors on the shared worker, told when it dies (their state died with it). */
const onWorkerLost = new Set<() => void>();

/**
 * Whether line detection runs in the worker: always (built or from sources, so tests take the
 * production path), unless CLIPPY_DETECTOR_WORKER=off keeps it on the main thread.
 */
export function workerAvailable(): boolean {
  return process.env.CLIPPY_DETECTOR_WORKER !== 'off';
}

function sharedWorker(): Worker {
  if (worker) return worker;
  const w = startWorker(WORKER_MODULE);
  // The daemon's life is its sockets and sessions; an idle detector worker never keeps it up.
  w.unref();
  w.on('message', (reply: WorkerReply) => listeners.get(reply.id)?.(reply));
  w.on('error', (err) => {
    for (const l of listeners.values()) l({ id: 0, error: err.stack ?? String(err) });
  });
  w.on('exit', () => {
    if (worker === w) worker = null;
    for (const lost of [...onWorkerLost]) lost();
  });
  worker = w;
  return w;
}

/**
 * A session's line-preset detector living in the shared detector worker: output and input
 * are posted in order, events come back asynchronously to `onReply`.
 *
 * Output goes through the session's shared ring once it comes in batches. When the worker falls
 * a whole ring behind (a flood on a busy machine), output waits here; past
 * DETECTOR_HOLD_BYTES the session holds its PTY (`onBacklogChanged`) until the worker caught up,
 * so memory stays bounded and no byte skips detection.
 */
export class WorkerDetector {
  private readonly id = nextId++;
  private readonly worker: DetectorPort;
  private closed = false;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private pendingAt = 0;
  /** The scheduled post of pending output: a timer during floods, an immediate otherwise. */
  private flushTimer: { timeout: NodeJS.Timeout } | { immediate: NodeJS.Immediate } | null = null;
  private lastPostAt = 0;
  private ring: OutputRing | null = null;
  private holding = false;
  /** Requests not yet posted (held while input waits for its echo), with their transfers. */
  private outbox: WorkerRequest[] = [];
  private outboxTransfer: ArrayBuffer[] = [];
  private outboxTimer: NodeJS.Timeout | null = null;
  /** Runs while the PTY is held for this detector: a detector that makes no progress is stuck. */
  private stallTimer: NodeJS.Timeout | null = null;
  private readonly lostHandler = () => this.abandon();
  /** Looks at the open turn's text waiting for the worker's answer, by request number. */
  private readonly partials = new Map<number, (text: string | null) => void>();
  private nextPartial = 1;

  constructor(
    preset: Preset,
    maxTurnBytes: number,
    private readonly onReply: (reply: DetectorReply) => void,
    private readonly onBacklogChanged: () => void = () => {},
    port?: DetectorPort,
    cols?: number,
  ) {
    this.worker = port ?? sharedWorker();
    if (!port) onWorkerLost.add(this.lostHandler);
    listeners.set(this.id, (reply) => {
      if ('partial' in reply) this.settlePartial(reply.partial.req, reply.partial.text);
      else onReply(reply);
    });
    this.post({ op: 'open', id: this.id, preset, maxTurnBytes, ...(cols ? { cols } : {}) });
  }

  /** The session's terminal width changed: posted in order with output and input. */
  resize(cols: number): void {
    if (this.closed) return;
    this.flush();
    if (this.pendingBytes > 0) this.postCopy(this.takePending(this.pendingBytes));
    this.post({ op: 'resize', id: this.id, cols });
  }

  /**
   * Ends this session's detection: the worker died (its error was already reported), or it
   * stopped taking output. `reason` is reported as `stopped`, so the session can show it.
   * Nothing waits for a ring no one reads any more: output must never stop for detection.
   */
  abandon(reason = WORKER_EXITED_REASON): void {
    if (this.closed) return;
    this.onReply({ id: this.id, stopped: reason });
    // Requests held for an echo are dropped: no one will read them.
    if (this.outboxTimer) clearTimeout(this.outboxTimer);
    this.outboxTimer = null;
    this.outbox = [];
    this.outboxTransfer = [];
    this.end();
  }

  /**
   * The open turn's text so far, as the worker's detector sees it after all output given so far
   * (null: no turn open, or detection ended).
   */
  partialText(): Promise<string | null> {
    if (this.closed) return Promise.resolve(null);
    this.flush();
    if (this.pendingBytes > 0) this.postCopy(this.takePending(this.pendingBytes));
    const req = this.nextPartial++;
    return new Promise((resolve) => {
      this.partials.set(req, resolve);
      this.post({ op: 'partial', id: this.id, req });
    });
  }

  private settlePartial(req: number, text: string | null): void {
    const resolve = this.partials.get(req);
    this.partials.delete(req);
    resolve?.(text);
  }

  /** Whether output waits here beyond the bound: the session keeps its PTY paused meanwhile. */
  get overloaded(): boolean {
    return this.holding;
  }

  onOutput(chunk: Uint8Array, now: number): void {
    if (this.closed) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    this.pendingAt = now;
    if (this.pendingBytes >= OUTPUT_BATCH_BYTES && !this.ringFull()) this.flush();
    else this.scheduleFlush();
    this.updateBacklog();
  }

  onInput(data: Uint8Array, now: number): void {
    if (this.closed) return;
    // Held from here on, the output before it included: a keystroke wakes no worker on its way
    // to the program (measured: the worker ran 30–95 µs between the input and `cat`'s echo on
    // a busy 2-core machine).
    this.outboxTimer ??= setTimeout(() => this.sendOutbox(), INPUT_POST_DELAY_MS);
    // Output that came before this input reaches the detector before it, even past a full ring.
    this.flush();
    if (this.pendingBytes > 0) this.postCopy(this.takePending(this.pendingBytes));
    this.post({ op: 'in', id: this.id, data, now });
    this.updateBacklog();
  }

  private ringFull(): boolean {
    return this.ring !== null && this.ring.used >= this.ring.size;
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    // While input waits for its echo in the outbox, the echo joins it there at once (nothing is
    // posted before the outbox goes): waiting out the post interval would cost a post of its own.
    // Not while the ring is full: only the worker frees it, so flushing again would spin.
    const wait =
      this.outboxTimer && !this.ringFull()
        ? 0
        : this.lastPostAt + OUTPUT_POST_INTERVAL_MS - performance.now();
    const run = () => {
      this.flushTimer = null;
      this.flush();
    };
    this.flushTimer =
      wait > 0 ? { timeout: setTimeout(run, wait) } : { immediate: setImmediate(run) };
  }

  /** Sends what the worker can take now: through the ring once batches are large, else a copy. */
  private flush(): void {
    this.cancelFlush();
    if (this.pendingBytes === 0 || this.closed) return;
    this.lastPostAt = performance.now();
    if (!this.ring && this.pendingBytes < RING_MIN_BATCH_BYTES) {
      this.postCopy(this.takePending(this.pendingBytes));
      return;
    }
    if (!this.ring) {
      this.ring = OutputRing.create(RING_BYTES);
      this.post({ op: 'ring', id: this.id, ring: this.ring.shared });
    }
    const room = this.ring.size - this.ring.used;
    if (room > 0) {
      const n = Math.min(room, this.pendingBytes);
      const span = this.ring.write(this.takePending(n), n)!;
      this.post({ op: 'ring-out', id: this.id, span, now: this.pendingAt });
    }
    // The rest waits for the worker to free ring space.
    if (this.pendingBytes > 0) this.scheduleFlush();
    this.updateBacklog();
  }

  /** Removes the first `n` pending bytes (splitting a chunk if needed). */
  private takePending(n: number): Uint8Array[] {
    let k = 0;
    let left = n;
    while (left > 0 && this.pending[k]!.length <= left) left -= this.pending[k++]!.length;
    // One splice, not a shift per chunk: a backlog is a thousand chunks.
    const out = this.pending.splice(0, k);
    if (left > 0) {
      const c = this.pending[0]!;
      out.push(c.subarray(0, left));
      this.pending[0] = c.subarray(left);
    }
    this.pendingBytes -= n;
    return out;
  }

  /** Posts bytes as one buffer, transferred (not copied again) to the worker. */
  private postCopy(chunks: Uint8Array[]): void {
    let bytes = 0;
    for (const c of chunks) bytes += c.length;
    const data = new Uint8Array(bytes);
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.length;
    }
    this.post({ op: 'out', id: this.id, data, now: this.pendingAt }, data.buffer);
  }

  private updateBacklog(): void {
    const holding = this.holding
      ? this.pendingBytes > DETECTOR_RESUME_BYTES
      : this.pendingBytes > DETECTOR_HOLD_BYTES;
    if (holding === this.holding) return;
    this.holding = holding;
    if (holding) this.armStallTimer();
    else this.clearStallTimer();
    this.onBacklogChanged();
  }

  /** While held: a worker that frees no ring space for DETECTOR_STALL_MS is stuck. */
  private armStallTimer(): void {
    const mark = this.ring?.consumedMark;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      if (!this.holding) return;
      if (this.ring && this.ring.consumedMark !== mark) this.armStallTimer();
      else
        this.abandon(
          `turn detection stopped: the detector took none of this session's output for ${DETECTOR_STALL_MS} ms`,
        );
    }, DETECTOR_STALL_MS);
  }

  private clearStallTimer(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
  }

  private cancelFlush(): void {
    if (!this.flushTimer) return;
    if ('timeout' in this.flushTimer) clearTimeout(this.flushTimer.timeout);
    else clearImmediate(this.flushTimer.immediate);
    this.flushTimer = null;
  }

  dispose(): void {
    if (this.closed) return;
    this.sendOutbox();
    this.end();
  }

  /**
   * Closes this session's detection (its queued requests already sent or dropped): output
   * waiting here is dropped, a held PTY released, and the worker told to drop the session (a
   * dead worker ignores that).
   */
  private end(): void {
    this.cancelFlush();
    this.clearStallTimer();
    this.pending = [];
    this.pendingBytes = 0;
    this.closed = true;
    if (this.holding) {
      this.holding = false;
      this.onBacklogChanged();
    }
    onWorkerLost.delete(this.lostHandler);
    listeners.delete(this.id);
    for (const resolve of this.partials.values()) resolve(null);
    this.partials.clear();
    this.post({ op: 'close', id: this.id });
  }

  /** Queues a request; it goes at once unless input is waiting for its echo. */
  private post(m: WorkerRequest, transfer?: ArrayBuffer): void {
    if (this.closed && m.op !== 'close') return;
    this.outbox.push(m);
    if (transfer) this.outboxTransfer.push(transfer);
    if (!this.outboxTimer) this.sendOutbox();
  }

  private sendOutbox(): void {
    if (this.outboxTimer) clearTimeout(this.outboxTimer);
    this.outboxTimer = null;
    if (this.outbox.length === 0) return;
    const items = this.outbox;
    const transfer = this.outboxTransfer;
    this.outbox = [];
    this.outboxTransfer = [];
    this.worker.postMessage(
      items.length === 1 ? items[0]! : { op: 'batch', id: this.id, items },
      transfer,
    );
  }
}
