/**
 * A session's output pipeline: the one place a chunk of its output goes through, end to end.
 *
 *   PTY read (main thread)
 *     │ outputBytes += n                          Session.handleOutput
 *     ▼
 *   OutputBatcher  ── small chunks at once; a flood's reads gather for OUTPUT_BATCH_MS
 *     │ one batch
 *     ├─► 1. every attached client (deliver: socket frames, or the terminal the daemon writes)
 *     ├─► 2. the bookkeeping of input that waited for its echo (SessionTurns, see takeInput)
 *     └─► 3. one copy to the pipeline worker (worker-client.ts: every session's steps of a loop
 *            turn in one message, at least 8 ms apart in a flood; a keystroke and its echo 4 ms
 *            after the keystroke)
 *                 │ (worker thread: worker/session-model.ts)
 *                 ▼
 *            OutputScan — the one parse of every byte ──┬─► turn detector (line watcher, OSC signals)
 *                                                       ├─► flood compactor (line-local stretches)
 *                                                       └─► tracked modes (bracketed paste, …)
 *            flood compactor ─► xterm (the screen model) ─► replays; renderings for screen presets
 *                 │
 *                 ▼ replies (one message per worker loop turn)
 *   main thread: progress (flow control), modes (injection, direct attach), terminal answers,
 *   replays, detector events and status (SessionTurns: the turn bookkeeping)
 *
 * The main thread keeps only what must be there: the batch, the clients and their flow control,
 * the PTY's pause while the worker is far behind, and the turn bookkeeping. Nothing slow runs
 * before a client has its bytes, and no byte is parsed twice.
 */
import {
  PIPELINE_BACKLOG_HIGH,
  PIPELINE_BACKLOG_LOW,
  PIPELINE_STALL_MS,
  SCROLLBACK_LINES,
} from '../constants.js';
import type { SessionModes } from '../terminal/direct-terminal.js';
import type { DetectorSetup, Reply } from './messages.js';
import { OutputBatcher } from './output-batcher.js';
import { workerClient, type WorkerClient, type WorkerSession } from './worker-client.js';

/** What the pipeline tells its session. */
export interface PipelineOwner {
  /** A batch of output for the attached clients (before the worker sees it). */
  deliver(chunks: Buffer[], bytes: number): void;
  /** `overloaded` changed: the session pauses or resumes its PTY. */
  flowChanged(): void;
  /** The terminal's answer to a query the program wrote (device attributes, cursor position). */
  answer(data: string): void;
}

/** What the session's turn bookkeeping hears from its detector in the worker. */
export interface DetectorListener {
  onReply(
    reply: Extract<Reply, { events: unknown } | { status: unknown } | { error: unknown }>,
  ): void;
  /** Detection stopped for good (the worker died or took nothing for long): why. */
  onStopped(reason: string): void;
  /**
   * The input that waited for its echo (`inputWritten`) is to be taken now: its bookkeeping
   * runs, and what it gives the detector (`input`) goes to the worker before anything after it.
   */
  takeInput(): void;
}

/** The session's detector in the worker, as its turn bookkeeping drives it. */
export interface DetectorLink {
  /**
   * Input was just written to the PTY; its bookkeeping waits for the echo. The output read
   * before it goes ahead now; the listener's `takeInput` runs once the next batch reached the
   * clients (before the worker has it), before any other step of this session goes to the
   * worker, or when the keystroke's message goes (INPUT_WORKER_DELAY_MS) if no output came.
   */
  inputWritten(): void;
  /**
   * Input written at `at` (epoch ms), for the detector: called from `takeInput` (or after
   * `inputWritten`'s output went ahead), so that it goes in order with the output around it.
   * The caller may reuse its buffer.
   */
  input(data: Uint8Array, at: number): void;
  dropUntaken(): void;
  /** The agent's record says the open turn ended; `tail`: its answer's end (answerTail). */
  recordedEnd(startedAt: number, tail: string | null): void;
  /** The open turn's text so far, after every byte given so far (null: none, or stopped). */
  partialText(): Promise<string | null>;
  /** Resolves once the detector took everything given so far (its status is current then). */
  synced(): Promise<void>;
}

/** Why detection stopped when the worker took no output for PIPELINE_STALL_MS. */
export const stalledReason = (ms: number) =>
  `turn detection stopped: the pipeline worker took none of this session's output for ${ms} ms`;

export class OutputPipeline implements WorkerSession {
  private readonly id: number;
  private width: number;
  private height: number;
  private readonly batcher: OutputBatcher;
  /** Bytes handed to the worker, and the part it reported done with. */
  private posted = 0;
  private consumed = 0;
  private holding = false;
  private stallTimer: NodeJS.Timeout | null = null;
  private readonly modesOn = new Set<number>();
  private readonly focusOffListeners = new Set<() => void>();
  private listener: DetectorListener | null = null;
  private nextReq = 1;
  private readonly waiting = new Map<number, (reply: Reply | null) => void>();
  /** Set while input written waits for its echo before its bookkeeping runs (`inputWritten`). */
  private inputWaiting = false;
  /** Takes the waiting input: what the worker client calls when the keystroke's message goes. */
  private readonly takeWaitingInput = (): void => this.takeInput();
  /** Why the worker's side is gone (null: it works). */
  private dead: string | null = null;
  private disposed = false;

  constructor(
    cols: number,
    rows: number,
    private readonly owner: PipelineOwner,
    private readonly worker: WorkerClient = workerClient,
    scrollback = SCROLLBACK_LINES,
  ) {
    this.width = cols;
    this.height = rows;
    this.batcher = new OutputBatcher((chunks, bytes) => this.emit(chunks, bytes));
    this.id = worker.register(this);
    worker.queue({ op: 'open', id: this.id, cols, rows, scrollback });
  }

  get cols(): number {
    return this.width;
  }

  get rows(): number {
    return this.height;
  }

  /** The modes the program's output turned on, for the attach path (direct attach). */
  readonly modes: SessionModes = {
    isOn: (mode) => this.modesOn.has(mode),
    settled: async () => {
      if (this.dead) return null;
      this.flush();
      const reply = await this.request((req) => ({ op: 'sync', id: this.id, req }));
      return reply ? new Set(this.modesOn) : null;
    },
    onFocusReportsOff: (listener) => {
      this.focusOffListeners.add(listener);
      return () => this.focusOffListeners.delete(listener);
    },
  };

  /** Whether the application turned bracketed paste on (`ESC[?2004h`). */
  get bracketedPaste(): boolean {
    return this.modesOn.has(2004);
  }

  /** Whether the application turned application cursor keys on (`ESC[?1h`). */
  get applicationCursor(): boolean {
    return this.modesOn.has(1);
  }

  /** Bytes handed to the worker and not yet done with there, as last reported. */
  get backlog(): number {
    return this.posted - this.consumed;
  }

  /** True while the worker is far behind: the session keeps its PTY paused meanwhile. */
  get overloaded(): boolean {
    return this.holding;
  }

  /** A chunk of the program's output (the PTY read). */
  write(chunk: Buffer): void {
    this.batcher.push(chunk);
  }

  /** Sends what waits in the batch now (before an attach's replay, the exit, input, a resize). */
  flush(): void {
    this.batcher.flush();
  }

  /** A restored session's last screen, for its replay (no client sees it as output). */
  restore(screen: Buffer): void {
    this.takeInput();
    this.toWorker([screen], screen.length);
  }

  resize(cols: number, rows: number): void {
    if (cols === this.width && rows === this.height) return;
    this.flush();
    this.takeInput();
    this.width = cols;
    this.height = rows;
    if (!this.dead) this.worker.queue({ op: 'resize', id: this.id, cols, rows });
  }

  /**
   * Resolves with the replay of the screen after exactly the output delivered to clients so far
   * (a client attached now gets the rest live): its bytes [0, n), live output from n.
   */
  async snapshot(): Promise<string> {
    this.flush();
    const reply = await this.request((req) => ({ op: 'serialize', id: this.id, req }));
    return reply && 'serialized' in reply ? reply.serialized.replay : '';
  }

  /** The session's detector in the worker: built with `setup`, reporting to `listener`. */
  detect(setup: DetectorSetup, listener: DetectorListener): DetectorLink {
    this.listener = listener;
    if (!this.dead) this.worker.queue({ op: 'detect', id: this.id, setup });
    return {
      inputWritten: () => {
        // No worker to follow it: the bookkeeping runs now (nothing waits, nothing piles up).
        if (this.dead || this.disposed) return this.listener?.takeInput();
        // The detector sees input after every byte of output before it.
        this.flush();
        if (this.inputWaiting) return;
        this.inputWaiting = true;
        this.worker.inputWritten(this.id, this.takeWaitingInput);
      },
      input: (data, at) => {
        if (!this.dead && !this.disposed) this.worker.input(this.id, data, at);
      },
      dropUntaken: () => {
        this.takeInput();
        if (!this.dead) this.worker.queue({ op: 'drop-untaken', id: this.id, now: Date.now() });
      },
      recordedEnd: (startedAt, tail) => {
        this.takeInput();
        if (!this.dead)
          this.worker.queue({
            op: 'recorded-end',
            id: this.id,
            startedAt,
            tail,
            now: Date.now(),
          });
      },
      partialText: async () => {
        this.flush();
        const reply = await this.request((req) => ({ op: 'partial', id: this.id, req }));
        return reply && 'partial' in reply ? reply.partial.text : null;
      },
      synced: async () => {
        this.flush();
        await this.request((req) => ({ op: 'sync', id: this.id, req }));
      },
    };
  }

  onReply(reply: Reply): void {
    if ('consumed' in reply) {
      this.consumed = reply.consumed;
      this.updateHold();
    } else if ('modes' in reply) {
      this.modesOn.clear();
      for (const m of reply.modes) this.modesOn.add(m);
      if (reply.focusOff) for (const listener of [...this.focusOffListeners]) listener();
    } else if ('answer' in reply) {
      this.owner.answer(reply.answer);
    } else if ('serialized' in reply) {
      this.settle(reply.serialized.req, reply);
    } else if ('partial' in reply) {
      this.settle(reply.partial.req, reply);
    } else if ('synced' in reply) {
      this.settle(reply.synced, reply);
    } else this.listener?.onReply(reply);
  }

  onWorkerLost(why: string): void {
    this.stop(`turn detection stopped: ${why}`);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.batcher.dispose();
    this.clearStallTimer();
    this.inputWaiting = false;
    this.listener = null;
    this.focusOffListeners.clear();
    this.settleAll();
    if (!this.dead) this.worker.unregister(this.id);
    this.dead ??= 'disposed';
  }

  /**
   * A batch: the clients first, then the bookkeeping of input that waited for this, its echo,
   * then one copy to the worker.
   */
  private emit(chunks: Buffer[], bytes: number): void {
    this.owner.deliver(chunks, bytes);
    this.takeInput();
    this.toWorker(chunks, bytes);
  }

  /**
   * Runs the bookkeeping of input that waited for its echo (the listener gives the detector its
   * input now). The keystroke's echo went to the clients without waiting for it (measured,
   * `bench-keys`, seven interleaved pairs: echo p50 0.25–0.30 ms with the bookkeeping before
   * the echo, 0.23–0.27 ms after it), and the input and its echo reach the worker in one
   * message, one wake-up of it.
   */
  private takeInput(): void {
    if (!this.inputWaiting) return;
    this.inputWaiting = false;
    this.listener?.takeInput();
  }

  private toWorker(chunks: readonly Uint8Array[], bytes: number): void {
    if (this.dead || this.disposed) return;
    this.worker.output(this.id, chunks, bytes, Date.now());
    this.posted += bytes;
    this.updateHold();
  }

  private request(
    step: (req: number) => Parameters<WorkerClient['queue']>[0],
  ): Promise<Reply | null> {
    this.takeInput();
    if (this.dead) return Promise.resolve(null);
    const req = this.nextReq++;
    return new Promise((resolve) => {
      this.waiting.set(req, resolve);
      this.worker.queue(step(req));
    });
  }

  private settle(req: number, reply: Reply | null): void {
    const resolve = this.waiting.get(req);
    this.waiting.delete(req);
    resolve?.(reply);
  }

  private settleAll(): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolve of waiting) resolve(null);
  }

  /** The PTY waits while the worker is far behind (hysteresis between the two marks). */
  private updateHold(): void {
    const backlog = this.backlog;
    const hold = this.holding ? backlog > PIPELINE_BACKLOG_LOW : backlog > PIPELINE_BACKLOG_HIGH;
    if (hold === this.holding) return;
    this.holding = hold;
    this.worker.queue({ op: 'held', id: this.id, on: hold });
    if (hold) this.armStallTimer();
    else this.clearStallTimer();
    this.owner.flowChanged();
  }

  /** While held: a worker that reports no progress for PIPELINE_STALL_MS is stuck. */
  private armStallTimer(): void {
    const mark = this.consumed;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      if (!this.holding) return;
      if (this.consumed !== mark) this.armStallTimer();
      else {
        this.stop(stalledReason(PIPELINE_STALL_MS));
        this.worker.unregister(this.id);
      }
    }, PIPELINE_STALL_MS);
  }

  private clearStallTimer(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
  }

  /**
   * The worker's side is gone (it died, or this session's part of it is stuck): output goes on
   * without a screen model (replays are empty) and without detection; a held PTY is released.
   */
  private stop(reason: string): void {
    if (this.dead || this.disposed) return;
    this.dead = reason;
    this.clearStallTimer();
    this.settleAll();
    this.listener?.onStopped(reason);
    if (this.holding) {
      this.holding = false;
      this.owner.flowChanged();
    }
  }
}
