import type { SessionState } from '@clippy/protocol';
import {
  InputTracker,
  multilineForm,
  TurnDetector,
  type DetectorEvent,
  type Menu,
  type MultilineForm,
  type Preset,
  type ScreenSnapshot,
} from '@clippy/turns';
import { HandlerError } from '../errors.js';
import { PasteLimiter } from './paste-limiter.js';
import {
  WorkerDetector,
  workerAvailable,
  type DetectorPort,
  type DetectorReply,
} from './worker-detector.js';
import {
  TurnRing,
  type NewTurn,
  type RingLimits,
  type StoredTurn,
} from '../turn-ring/turn-ring.js';
import { SessionChannel } from '../agents/session-channel.js';
import type { AgentChannel } from '../agents/types.js';
import type { JoinHost } from '../agents/turn-join.js';

/**
 * Least time between two screen snapshots fed to a screen preset's detector: TUIs redraw in
 * bursts of many small writes, and reading the screen for each would cost more than the
 * output itself; 25 ms (agentapi's period) keeps detection well inside its latency target.
 */
export const SCREEN_SNAPSHOT_INTERVAL_MS = 25;

/** The session's rendered screen, read after the terminal model has parsed the output. */
export interface TurnsScreen {
  snapshot(): ScreenSnapshot;
}

/** What the turn machinery tells its session (which turns them into broker events). */
export interface SessionTurnsEvents {
  /** The first prompt appeared (once). */
  ready(): void;
  state(state: SessionState): void;
  /** The question a blocked session asks and its choices (null: none on screen), reported
   * before the `blocked` state and whenever it changes while blocked. */
  menu?(menu: Menu | null): void;
  turn(turn: StoredTurn): void;
  /** A failure inside detection: logged, never thrown into the output path. */
  error(err: unknown): void;
  /** Detection stopped for good (the session goes on without turns): why, for the log. */
  stopped?(reason: string): void;
  /** `overloaded` changed: the session pauses or resumes its PTY. */
  backlog?(): void;
  /** The detector has news a wait may look for (a submit taken, a screen read, the end). */
  activity?(): void;
}

export interface SessionTurnsOptions {
  sessionId: string;
  /** The session's preset; null for a wrapper session (its client publishes the turns). */
  preset: Preset | null;
  limits: RingLimits;
  screen?: TurnsScreen;
  events: SessionTurnsEvents;
  /** Where a line preset's detector runs (tests give a recorder); default the shared worker. */
  detectorPort?: DetectorPort;
  /** The terminal's width at start (line presets follow a long input's wrapped echo on it). */
  cols?: number;
  /** The agent's own channel, when wired: its reports are joined to the screen's turns. */
  channel?: { agent: AgentChannel; log: Pick<JoinHost, 'warn' | 'debug'> };
}

interface Waiter {
  after: number;
  resolve(turn: StoredTurn): void;
  reject(err: Error): void;
}

/**
 * A session's turns: the detector fed from the output and input paths (after output was
 * forwarded: detection never delays output), screen snapshots throttled for screen presets,
 * one timer at the detector's next deadline, the ring of completed turns, and waits for the
 * next turn.
 */
export class SessionTurns {
  readonly ring: TurnRing;
  /** The preset knows a continuation prompt (REPLs): see `awaitingMore`. */
  readonly hasContinuation: boolean;
  /** How the preset sees a prompt: `screen` (a full-screen agent) or `line`; null: no preset. */
  readonly presetKind: Preset['kind'] | null;
  /**
   * A line preset: its program, when `blocked`, reads a line of input (a screen preset's
   * `blocked` is a dialog, answered with keys).
   */
  readonly readsLines: boolean;
  /** How a multi-line text is typed into the program when it takes no bracketed paste. */
  readonly multiline: MultilineForm;
  /** The keys that stop the program's work, pressed one after the other (`interrupt`). */
  readonly interruptKeys: readonly string[];
  /** What an injection types first to empty the input box (the preset's `clearInput`), or null. */
  readonly clearInput: Uint8Array | null;
  private detector: TurnDetector | null;
  private readonly screen: TurnsScreen | undefined;
  private readonly events: SessionTurnsEvents;
  private timer: NodeJS.Timeout | null = null;
  private timerAt: number | null = null;
  private snapshotDueAt: number | null = null;
  private lastSnapshotAt = -Infinity;
  private waiters = new Set<Waiter>();
  /** The newest turn a `wait_turn` was waiting for when it completed (0: none). */
  lastAwaitedSeq = 0;
  private ready = false;
  private ended = false;
  /** Submits seen on the input path (one answers a continuation prompt at once). */
  private readonly inputs = new InputTracker();
  /** Line presets in the built broker: the detector runs in the detector worker. */
  private worker: WorkerDetector | null = null;
  private readonly pasteLimiter = new PasteLimiter();
  private _detectionStopped: string | null = null;
  private _awaitingMore = false;
  /** The detector's latest state (the join asks whether a turn is in progress). */
  private screenState: string = 'starting';
  /** The agent's channel (null: turns come from the screen alone). */
  readonly channel: SessionChannel | null;

  constructor(opts: SessionTurnsOptions) {
    this.ring = new TurnRing(opts.sessionId, opts.limits);
    this.hasContinuation = opts.preset?.continuation !== undefined;
    this.presetKind = opts.preset?.kind ?? null;
    this.readsLines = opts.preset?.kind === 'line';
    this.multiline = multilineForm(opts.preset);
    this.interruptKeys =
      opts.preset?.interruptKeys ?? (opts.preset?.kind === 'screen' ? ['Esc'] : ['C-c']);
    this.clearInput = opts.preset?.clearInput ? Buffer.from(opts.preset.clearInput, 'utf8') : null;
    this.detector = null;
    if (opts.preset?.kind === 'line' && (opts.detectorPort || workerAvailable())) {
      this.worker = new WorkerDetector(
        opts.preset,
        opts.limits.maxTurnBytes,
        (r) => this.onWorkerReply(r),
        () => this.events.backlog?.(),
        opts.detectorPort,
        opts.cols,
      );
    } else if (opts.preset) {
      this.detector = new TurnDetector({
        preset: opts.preset,
        maxTurnBytes: opts.limits.maxTurnBytes,
        ...(opts.cols ? { cols: opts.cols } : {}),
      });
    }
    this.screen = opts.screen;
    this.events = opts.events;
    this.channel = opts.channel
      ? new SessionChannel(
          opts.channel.agent,
          {
            store: (t) => this.store(t),
            screenIdle: () =>
              this.detector ? !this.detector.turnOpen : this.screenState === 'idle',
            amend: (note, record) => {
              const latest = this.ring.latest();
              if (!latest) return;
              latest.disagreement = note;
              latest.agent ??= record;
            },
          },
          opts.channel.log,
        )
      : null;
  }

  /**
   * The program shows its continuation prompt (Python's, Node's `... `): it wants more input
   * for the open turn. Cleared by the next state change or turn.
   */
  get awaitingMore(): boolean {
    return this._awaitingMore;
  }

  /**
   * Screen presets: submits seen and the latest the agent took (see TurnDetector.submits);
   * null where it cannot be told (line presets: their output after Enter tells).
   */
  get submits(): { sent: number; taken: number } | null {
    return this.detector?.needsScreen ? this.detector.submits : null;
  }

  /**
   * Screen presets: whether the agent's input box shows `text` now (it read the paste); null
   * where it cannot be told.
   */
  inputShows(text: string): boolean | null {
    return this.detector?.inputShows(text) ?? null;
  }

  /** The agent did not take an injection's Enter: its open turn is dropped (screen presets). */
  dropUntaken(): void {
    if (!this.detector) return;
    try {
      this.handle(this.detector.dropUntaken(Date.now()));
    } catch (err) {
      this.events.error(err);
    }
  }

  /** The terminal was resized. */
  resize(cols: number): void {
    this.worker?.resize(cols);
    this.detector?.resize(cols);
  }

  /** Why turn detection stopped for this session (shown in its info), or null while it runs. */
  get detectionStopped(): string | null {
    return this._detectionStopped;
  }

  /** Whether detection is so far behind that the PTY must wait (see WorkerDetector). */
  get overloaded(): boolean {
    return this.worker?.overloaded ?? false;
  }

  /** Output bytes, called after they were forwarded to clients. */
  onOutput(chunk: Uint8Array): void {
    if (this.worker) {
      this.worker.onOutput(chunk, Date.now());
    } else if (this.detector) {
      try {
        this.handle(this.detector.onOutput(chunk, Date.now()));
        this.schedule();
      } catch (err) {
        this.events.error(err);
      }
    }
  }

  /** Input bytes on their way to the PTY (typed, pasted or injected). */
  onInput(data: Uint8Array): void {
    if (!this.detector && !this.worker) return;
    try {
      const now = Date.now();
      // A copy: the caller's bytes may be a view of a buffer it reuses (the terminal's reads),
      // and detection keeps input (the worker's outbox, echo removal).
      data = this.pasteLimiter.filter(new Uint8Array(data));
      for (const ev of this.inputs.feed(data)) {
        // Input answers a continuation prompt (the detector, maybe in the worker, follows).
        if (ev.type === 'submit') this._awaitingMore = false;
      }
      if (this.worker) {
        this.worker.onInput(data, now);
        return;
      }
      this.handle(this.detector!.onInput(data, now));
      this.schedule();
    } catch (err) {
      this.events.error(err);
    }
  }

  /** The screen model parsed more output: snapshot it now, or at the next free slot. */
  onScreenParsed(): void {
    if (!this.detector?.needsScreen || !this.screen) return;
    const now = Date.now();
    if (now - this.lastSnapshotAt >= SCREEN_SNAPSHOT_INTERVAL_MS) {
      this.snapshotDueAt = null;
      this.takeSnapshot(now);
      this.schedule();
    } else if (this.snapshotDueAt === null) {
      this.snapshotDueAt = this.lastSnapshotAt + SCREEN_SNAPSHOT_INTERVAL_MS;
      this.schedule();
    }
  }

  /**
   * The open turn's text so far, extracted as the completed turn's will be (null: no turn open,
   * the session is blocked, or no detector runs): for showing an answer while it grows.
   */
  partialText(): Promise<string | null> {
    if (this.worker) return this.worker.partialText();
    try {
      return Promise.resolve(this.detector?.partialText() ?? null);
    } catch (err) {
      this.events.error(err);
      return Promise.resolve(null);
    }
  }

  /** A wrapper publishes a completed turn of its session. */
  publish(turn: NewTurn): StoredTurn {
    return this.store(turn);
  }

  /**
   * The first stored turn with a sequence number above `after` (already stored, or the next to
   * complete). Fails with `timeout` after `timeoutMs`, or `session_exited` when the session
   * ends first.
   */
  waitTurn(
    after: number,
    timeoutMs: number | undefined,
    signal?: AbortSignal,
  ): Promise<StoredTurn> {
    const existing = this.ring.after(after);
    if (existing) return Promise.resolve(existing);
    if (this.ended)
      return Promise.reject(
        new HandlerError('session_exited', 'the session has exited: no further turn will come'),
      );
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | null = null;
      const waiter: Waiter = {
        after,
        resolve: (t) => {
          if (timer) clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(t);
        },
        reject: (e) => {
          if (timer) clearTimeout(timer);
          this.waiters.delete(waiter);
          reject(e);
        },
      };
      signal?.addEventListener(
        'abort',
        () => waiter.reject(new HandlerError('timeout', 'the wait was cancelled')),
        {
          once: true,
        },
      );
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () =>
            waiter.reject(new HandlerError('timeout', `no turn completed within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }
      this.waiters.add(waiter);
    });
  }

  /** The session ended: stop detecting (a turn in progress is dropped), fail the waits. */
  end(): void {
    if (this.ended) return;
    // A turn the screen completed and the channel was still reporting is stored first.
    this.channel?.dispose();
    this.ended = true;
    this.detector = null;
    this.worker?.dispose();
    this.worker = null;
    this.clearTimer();
    for (const w of [...this.waiters]) {
      w.reject(
        new HandlerError('session_exited', 'the session exited before its next turn completed'),
      );
    }
    this.notify();
  }

  /** The detector has news: the session wakes its waits (Session.onActivity). */
  private notify(): void {
    this.events.activity?.();
  }

  dispose(): void {
    this.end();
  }

  private handle(events: DetectorEvent[] | void): void {
    if (!events) return;
    this.handleEvents(events);
    // The open turn (a new one, or none now) is followed in the agent's record.
    if (this.channel && this.detector?.needsScreen)
      this.channel.follow(this.detector.currentTurn, (startedAt) => this.recordedEnd(startedAt));
  }

  /**
   * The agent's record says the open turn ended: the detector completes it once its screen
   * shows the prompt, after a shorter quiet wait (see TurnDetector.recordedEnd).
   */
  private recordedEnd(startedAt: number): void {
    if (!this.detector) return;
    try {
      this.handle(this.detector.recordedEnd(startedAt, Date.now()));
      this.schedule();
    } catch (err) {
      this.events.error(err);
    }
  }

  private handleEvents(events: DetectorEvent[]): void {
    for (const e of events) {
      if (e.type === 'ready') {
        if (!this.ready) {
          this.ready = true;
          this.events.ready();
        }
      } else if (e.type === 'continuation') {
        this._awaitingMore = true;
      } else if (e.type === 'menu') {
        this.events.menu?.(e.menu);
      } else if (e.type === 'state') {
        this.screenState = e.state;
        // A continuation event comes with its `blocked` state; any other state ends the wait.
        if (e.state !== 'blocked') this._awaitingMore = false;
        this.events.state(e.state);
        this.notify();
      } else if (e.type === 'turn') {
        this._awaitingMore = false;
        const turn: NewTurn = {
          content: e.content,
          text: e.text,
          // What was submitted, as the detector followed it: all lines of a multi-line input,
          // never keys typed into a full-screen program.
          prompt: e.input,
          interrupted: e.interrupted,
          truncated: e.truncated,
          startedAt: e.startedAt,
          endedAt: e.endedAt,
        };
        if (this.channel) this.channel.screenTurn(turn);
        else this.store(turn);
      }
    }
  }

  /** Events of a detector running in the worker. */
  private onWorkerReply(reply: DetectorReply): void {
    if (this.ended) return;
    if ('stopped' in reply) {
      // The detector ended itself; output goes on without detection.
      this.worker = null;
      this._detectionStopped = reply.stopped;
      this.events.stopped?.(reply.stopped);
      this.notify();
      return;
    }
    if ('error' in reply) {
      this.events.error(new Error(`turn detector worker: ${reply.error}`));
      return;
    }
    try {
      this.handle(reply.events);
    } catch (err) {
      this.events.error(err);
    }
  }

  private store(turn: NewTurn): StoredTurn {
    const stored = this.ring.add(turn);
    // Someone waits for this answer (ask, wait): it shows it to the user itself.
    if ([...this.waiters].some((w) => stored.seq > w.after)) this.lastAwaitedSeq = stored.seq;
    this.events.turn(stored);
    for (const w of [...this.waiters]) if (stored.seq > w.after) w.resolve(stored);
    return stored;
  }

  private takeSnapshot(now: number): void {
    if (!this.detector || !this.screen) return;
    this.lastSnapshotAt = now;
    this.handle(this.detector.onScreen(this.screen.snapshot(), now));
    // An injection waiting for the text to show, or for its Enter to be taken, looks again.
    this.notify();
  }

  /**
   * Arms the one timer at the earliest of the detector's deadline and a pending snapshot. A
   * later deadline keeps the armed timer (it fires early, ticks harmlessly, re-arms): output
   * chunks then cost no timer churn.
   */
  private schedule(): void {
    if (!this.detector) return;
    const deadline = this.detector.nextDeadline();
    let at = deadline;
    if (this.snapshotDueAt !== null && (at === null || this.snapshotDueAt < at))
      at = this.snapshotDueAt;
    if (at === null) return;
    if (this.timerAt !== null && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = null;
    if (!this.detector) return;
    try {
      const now = Date.now();
      if (this.snapshotDueAt !== null && now >= this.snapshotDueAt) {
        this.snapshotDueAt = null;
        this.takeSnapshot(now);
      }
      if (this.detector) this.handle(this.detector.tick(now));
      // A submit the detector has seen taken only now (its screen stayed so): wake the waits.
      this.notify();
      this.schedule();
    } catch (err) {
      this.events.error(err);
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = null;
  }
}
