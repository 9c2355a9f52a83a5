import {
  ECHO_HOLD_MS,
  INPUT_WORKER_DELAY_MS,
  OUTPUT_BATCH_MAX_BYTES,
  PIPELINE_POST_INTERVAL_MS,
  PIPELINE_WORKER_IDLE_MS,
} from '../constants.js';
import { startWorker } from '../worker-start.js';
import type { FromWorker, Reply, Step, ToWorker } from './messages.js';

/**
 * Largest `out` step that joined batches make: a frame's worth (OUTPUT_BATCH_MAX_BYTES), the size
 * one session's flood batches have anyway. Joining is for the many small batches of sessions
 * flooding side by side; a step's visible text is one string, kept no larger than that.
 */
const JOINED_OUTPUT_MAX_BYTES = OUTPUT_BATCH_MAX_BYTES;

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
 * order: the steps queued meanwhile go in one message, each session's bytes in one transferred
 * buffer. A message goes at the next turn of the event loop, but output waits out the pace of
 * a flood (PIPELINE_POST_INTERVAL_MS after the last message), and a keystroke with its echo
 * waits INPUT_WORKER_DELAY_MS, unless a message is due sooner: it goes with that one (requests
 * and a session's changes wait for neither).
 * A session's output batches that follow each other in a message, with no other step of that
 * session between them, travel as one `out` step: the worker pays per step (a scan, a pass of
 * the detector) as well as per byte, and sessions flooding side by side each sent many small
 * batches per message (measured, 50 sessions `cat`ing 2 MB each: 21,410 steps of 5 KB on
 * average, 8,723 once joined).
 * A keystroke comes with its echo (the session's pipeline holds the input until the echo was
 * delivered, see OutputPipeline.takeInput), so both wake the worker once, after the echo was
 * drawn; and no message goes between a keystroke's write and its echo (ECHO_HOLD_MS).
 */
export class WorkerClient {
  private worker: WorkerPort | null = null;
  private readonly sessions = new Map<number, WorkerSession>();
  private nextId = 1;
  private steps: Step[] = [];
  /** The bytes of each `out` and `in` step queued (views until the message goes), by step. */
  private readonly pieces = new Map<Step, Uint8Array[]>();
  /** Sessions whose last step queued is output: more output joins that step. */
  private readonly openOut = new Map<number, Extract<Step, { op: 'out' }>>();
  private dataBytes = 0;
  private scheduled: NodeJS.Immediate | null = null;
  /** The timer of a message that waits: for the flood's pace, or for a keystroke's delay. */
  private paced: NodeJS.Timeout | null = null;
  private lastPostAt = -Infinity;
  /** Steps queued that must not wait for the pace (requests, opening a session, a resize). */
  private urgent = false;
  /** Input is queued or written: the message waits INPUT_WORKER_DELAY_MS after it (unless urgent). */
  private inputAt: number | null = null;
  /**
   * Sessions with input written whose bookkeeping waits for its echo (OutputPipeline), each with
   * the call that takes it: taken before a message goes, so input that causes no output reaches
   * the worker with the keystroke's message all the same.
   */
  private readonly untaken = new Map<number, () => void>();
  /**
   * The keystroke's wait (INPUT_WORKER_DELAY_MS), armed when input is written: one timer for the
   * daemon, re-armed with `refresh()`. Timers made per keystroke (one for the echo's wait,
   * cleared at the echo, then the message's) cost it a wake-up of the main thread and, between
   * the write to the PTY and the daemon's next wait for events, 15–25 µs (measured, 400 keys
   * into `cat`: p50 52–60 µs, 29–41 µs without), which the echo often waits for: the kernel's
   * work that makes it ran on the daemon's core once the daemon waited (traced on the 2-core
   * machine).
   */
  private inputTimer: NodeJS.Timeout | null = null;
  private inputArmed = false;
  /** When the latest keystroke was written (epoch ms), and whether output came since. */
  private keyAt = 0;
  private echoPending = false;
  /** A message due waits for the latest keystroke's echo (see ECHO_HOLD_MS). */
  private holding = false;
  /** Set while waiting input is taken: the steps it queues go with the message being decided. */
  private taking = false;
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
    this.untaken.delete(id);
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
    this.openOut.delete(step.id);
    this.steps.push(step);
    this.urgent = true;
    this.schedule();
  }

  /** Output bytes of session `id`, read at `now` (views: copied when the message goes). */
  output(id: number, chunks: readonly Uint8Array[], bytes: number, now: number): void {
    const open = this.openOut.get(id);
    if (open && open.length + bytes <= JOINED_OUTPUT_MAX_BYTES) {
      // Joined to the session's output before it: read by `now`, all of it (a turn's end is
      // told from quiet after output, so a later time is never early).
      open.length += bytes;
      open.now = now;
      this.pieces.get(open)!.push(...chunks);
    } else {
      const step: Extract<Step, { op: 'out' }> = {
        op: 'out',
        id,
        buf: 0,
        at: 0,
        length: bytes,
        now,
      };
      this.steps.push(step);
      this.pieces.set(step, [...chunks]);
      this.openOut.set(id, step);
    }
    this.dataBytes += bytes;
    this.echoPending = false;
    // The echo reached the clients: a message that waited for it goes now.
    if (this.holding) this.scheduled ??= setImmediate(this.immediateDue);
    else this.schedule();
  }

  /**
   * Input of session `id` was written to its PTY; `take` runs its bookkeeping (which queues its
   * `input` step) and is called at the latest when the next message goes (before that, the
   * session takes it itself, once the echo went to the clients). The message waits
   * INPUT_WORKER_DELAY_MS from the first keystroke in it.
   */
  inputWritten(id: number, take: () => void): void {
    this.untaken.set(id, take);
    this.keyAt = Date.now();
    this.echoPending = true;
    if (this.inputAt !== null) return;
    this.inputAt = performance.now();
    this.inputArmed = true;
    if (this.inputTimer) this.inputTimer.refresh();
    else this.inputTimer = setTimeout(this.inputDue, INPUT_WORKER_DELAY_MS);
  }

  /** Input of session `id` (copied: the caller's buffer may be reused). */
  input(id: number, data: Uint8Array, now: number): void {
    const step: Step = { op: 'in', id, buf: 0, at: 0, length: data.length, now };
    this.openOut.delete(id);
    this.steps.push(step);
    this.pieces.set(step, [data.slice()]);
    this.dataBytes += data.length;
    this.inputAt ??= performance.now();
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.taking) return;
    const now = performance.now();
    // Output right after the last message waits out the pace (a flood: see the constant), and
    // a keystroke waits for its echo to be drawn (see INPUT_WORKER_DELAY_MS).
    const paceWait = this.lastPostAt + PIPELINE_POST_INTERVAL_MS - now;
    const inputWait = this.inputAt === null ? 0 : this.inputAt + INPUT_WORKER_DELAY_MS - now;
    if (!this.urgent) {
      // The keystroke's own timer goes off then, and the pace is over by that time.
      if (this.inputArmed && paceWait <= inputWait) return;
      const wait = Math.max(paceWait, inputWait);
      if (wait > 0) {
        this.paced ??= setTimeout(this.paceDue, wait);
        return;
      }
    }
    this.scheduled = setImmediate(this.immediateDue);
  }

  private readonly paceDue = (): void => {
    this.paced = null;
    if (!this.holdForEcho()) this.send();
  };

  private readonly immediateDue = (): void => {
    this.scheduled = null;
    this.send();
  };

  /** The keystroke's wait is over: its message goes, unless the pace of a flood holds it. */
  private readonly inputDue = (): void => {
    this.inputArmed = false;
    const paceWait = this.lastPostAt + PIPELINE_POST_INTERVAL_MS - performance.now();
    if (paceWait > 0 && !this.urgent && !this.scheduled)
      this.paced ??= setTimeout(this.paceDue, paceWait);
    else if (!this.holdForEcho()) this.send();
  };

  /**
   * Whether the message that fell due now waits for the echo of a keystroke written a moment
   * ago (see ECHO_HOLD_MS): `output` sends it once the echo reached the clients, or its timer
   * after ECHO_HOLD_MS. A message that waits already goes no sooner.
   */
  private holdForEcho(): boolean {
    if (this.holding) return true;
    // A message going at this turn of the loop anyway (a request's) waits for nothing.
    if (!this.echoPending || this.urgent || this.scheduled) return false;
    if (Date.now() - this.keyAt >= ECHO_HOLD_MS) return false;
    this.holding = true;
    if (this.paced) clearTimeout(this.paced);
    this.paced = setTimeout(this.echoWaitOver, ECHO_HOLD_MS);
    return true;
  }

  /** No echo came for the message that waited for one: it goes (and ends the wait). */
  private readonly echoWaitOver = (): void => {
    this.paced = null;
    this.send();
  };

  /**
   * Stops the keystroke's timer. A cleared timer is dead for `refresh()` (Node marks it so), so
   * the next keystroke makes a new one; this happens only when a message goes before the
   * keystroke's wait is over (a request).
   */
  private disarmInput(): void {
    if (!this.inputArmed) return;
    this.inputArmed = false;
    clearTimeout(this.inputTimer!);
    this.inputTimer = null;
  }

  /** Runs the bookkeeping of input still waiting for its echo: its steps join the message. */
  private takeUntaken(): void {
    if (this.untaken.size === 0) return;
    this.taking = true;
    try {
      for (const take of this.untaken.values()) take();
    } finally {
      this.taking = false;
      this.untaken.clear();
    }
  }

  /** Posts every queued step, their bytes copied into one transferred buffer per session. */
  private send(): void {
    this.takeUntaken();
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.paced) clearTimeout(this.paced);
    this.paced = null;
    this.holding = false;
    // Sent before its wait was over (a request went): nothing is left for the timer to send.
    this.disarmInput();
    this.inputAt = null;
    if (this.steps.length === 0) return;
    this.urgent = false;
    this.lastPostAt = performance.now();
    const data: ArrayBuffer[] = [];
    if (this.dataBytes > 0) {
      // Each session's bytes in order in its own buffer: sizes first, then the copies.
      const buffers = new Map<number, { index: number; bytes: Buffer | null; size: number }>();
      for (const step of this.steps) {
        if (step.op !== 'out' && step.op !== 'in') continue;
        let b = buffers.get(step.id);
        if (!b) buffers.set(step.id, (b = { index: buffers.size, bytes: null, size: 0 }));
        step.buf = b.index;
        step.at = b.size;
        b.size += step.length;
      }
      for (const b of buffers.values()) {
        // Not zeroed: every byte is written just below (a flood's messages are tens of KB each).
        const bytes = Buffer.allocUnsafeSlow(b.size);
        b.bytes = bytes;
        data.push(bytes.buffer);
      }
      for (const step of this.steps) {
        if (step.op !== 'out' && step.op !== 'in') continue;
        const bytes = buffers.get(step.id)!.bytes!;
        let at = step.at;
        for (const c of this.pieces.get(step)!) {
          bytes.set(c, at);
          at += c.length;
        }
      }
    }
    const message: ToWorker = { steps: this.steps, data };
    this.steps = [];
    this.pieces.clear();
    this.openOut.clear();
    this.dataBytes = 0;
    this.worker?.postMessage(message, data);
  }

  private clearQueue(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.paced) clearTimeout(this.paced);
    this.paced = null;
    this.disarmInput();
    this.untaken.clear();
    this.holding = false;
    this.echoPending = false;
    this.urgent = false;
    this.inputAt = null;
    this.steps = [];
    this.pieces.clear();
    this.openOut.clear();
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
