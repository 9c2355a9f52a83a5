import type { SessionState } from '@clippy/protocol';
import {
  answerTail,
  InputTracker,
  inputHolds,
  multilineForm,
  type DetectorEvent,
  type Menu,
  type MultilineForm,
  type Preset,
} from '@clippy/turns';
import { HandlerError } from '../errors.js';
import type { DetectorStatus } from '../pipeline/messages.js';
import type {
  DetectorLink,
  DetectorListener,
  OutputPipeline,
} from '../pipeline/output-pipeline.js';
import { PasteLimiter } from './paste-limiter.js';
import {
  TurnRing,
  type NewTurn,
  type RingLimits,
  type StoredTurn,
} from '../turn-ring/turn-ring.js';
import { SessionChannel } from '../agents/session-channel.js';
import type { AgentChannel } from '../agents/types.js';
import type { JoinHost } from '../agents/turn-join.js';

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
  /** The detector has news a wait may look for (a submit taken, a screen read, the end). */
  activity?(): void;
}

export interface SessionTurnsOptions {
  sessionId: string;
  /** The session's preset; null for a wrapper session (its client publishes the turns). */
  preset: Preset | null;
  limits: RingLimits;
  /**
   * The session's output pipeline: its worker runs the detector beside the screen model, on the
   * one scan of the output. Needed for detection (with a preset).
   */
  pipeline?: Pick<OutputPipeline, 'detect'>;
  events: SessionTurnsEvents;
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

/** Nothing open, nothing submitted: what the mirror of a detector says before it said anything. */
const NO_STATUS: DetectorStatus = {
  turnOpen: false,
  startedAt: null,
  input: '',
  submits: { sent: 0, taken: 0 },
  loads: 0,
  inputLine: null,
  interruptArmed: false,
};

/**
 * A session's turns, the bookkeeping on the main thread: its detector runs in the pipeline worker
 * (fed there from the output, after clients had it: detection never delays output), and what it
 * says comes here — its events, and the status mirrored for synchronous questions (a turn open,
 * submits taken, the input box). Here: the input path (the paste limit, Enter), the ring of
 * completed turns, the agent's channel, and waits for the next turn.
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
  /** The preset tells when the program read one interrupt key and waits for the next. */
  readonly showsInterruptArmed: boolean;
  /** What an injection types first to empty the input box (the preset's `clearInput`), or null. */
  readonly clearInput: Uint8Array | null;
  /** The detector in the pipeline worker (null: none, or detection stopped). */
  private detector: DetectorLink | null = null;
  private readonly events: SessionTurnsEvents;
  /** What the detector said of itself last. */
  private status: DetectorStatus = NO_STATUS;
  private waiters = new Set<Waiter>();
  /** The newest turn a `wait_turn` was waiting for when it completed (0: none). */
  lastAwaitedSeq = 0;
  private ready = false;
  private ended = false;
  /** Submits seen on the input path (one answers a continuation prompt at once; REPLs only). */
  private readonly inputs = new InputTracker();
  private readonly pasteLimiter = new PasteLimiter();
  private _detectionStopped: string | null = null;
  private _awaitingMore = false;
  /** Input written that waits for its echo before its bookkeeping runs (see `onInput`). */
  private waitingInput: { data: Uint8Array; at: number }[] = [];
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
    this.showsInterruptArmed =
      opts.preset?.kind === 'screen' && (opts.preset.interruptArmed?.length ?? 0) > 0;
    this.clearInput = opts.preset?.clearInput ? Buffer.from(opts.preset.clearInput, 'utf8') : null;
    this.events = opts.events;
    if (opts.preset && opts.pipeline) {
      const listener: DetectorListener = {
        onReply: (reply) => this.onDetectorReply(reply),
        onStopped: (reason) => this.stopDetection(reason),
        takeInput: () => this.takeInput(),
      };
      this.detector = opts.pipeline.detect(
        { preset: opts.preset, maxTurnBytes: opts.limits.maxTurnBytes, cols: opts.cols ?? 0 },
        listener,
      );
    }
    this.channel = opts.channel
      ? new SessionChannel(
          opts.channel.agent,
          {
            store: (t) => this.store(t),
            screenIdle: () =>
              this.presetKind === 'screen' ? !this.status.turnOpen : this.screenState === 'idle',
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
    // An Enter that waits for its echo answers the prompt already.
    this.takeInput();
    return this._awaitingMore;
  }

  /**
   * Screen presets: submits seen and the latest the agent took (see TurnDetector.submits), as
   * the detector said last (`synced` makes that current); null where it cannot be told (line
   * presets: their output after Enter tells).
   */
  get submits(): { sent: number; taken: number } | null {
    return this.presetKind === 'screen' && this.detector ? this.status.submits : null;
  }

  /**
   * Screen presets: how many loading screens (the input box gone, what is typed dropped: Gemini
   * CLI resuming) began so far, as the detector said last.
   */
  get loads(): number {
    return this.status.loads;
  }

  /**
   * Screen presets: whether the agent's input box shows `text` now (it read the paste); null
   * where it cannot be told.
   */
  inputShows(text: string): boolean | null {
    if (this.presetKind !== 'screen' || !this.detector) return null;
    const line = this.status.inputLine;
    return line !== null && inputHolds(line, text);
  }

  /**
   * Screen presets with `interruptArmed`: the latest screen shows it (the program read one
   * interrupt key and waits for the next), as the detector said last.
   */
  get interruptArmed(): boolean {
    return this.detector !== null && this.status.interruptArmed;
  }

  /**
   * The agent did not take an injection's Enter: its open turn is dropped (screen presets).
   * Resolves once the detector did (the session's state says so then).
   */
  async dropUntaken(): Promise<void> {
    const detector = this.detector;
    if (this.presetKind !== 'screen' || !detector) return;
    detector.dropUntaken();
    await detector.synced();
  }

  /** Resolves once the detector took every input given so far: its status is current then. */
  synced(): Promise<void> {
    return this.detector?.synced() ?? Promise.resolve();
  }

  /** Why turn detection stopped for this session (shown in its info), or null while it runs. */
  get detectionStopped(): string | null {
    return this._detectionStopped;
  }

  /**
   * Input bytes just written to the PTY (typed, pasted or injected), written at `at` (epoch ms:
   * a turn this opens starts then). Only kept here: the bookkeeping runs once the echo went to
   * the clients (the pipeline calls `takeInput`), so a keystroke's echo does not wait for it.
   */
  onInput(data: Uint8Array, at = Date.now()): void {
    const detector = this.detector;
    if (!detector) return;
    // A copy: the caller's bytes may be a view of a buffer it reuses (the terminal's reads).
    this.waitingInput.push({ data: new Uint8Array(data), at });
    detector.inputWritten();
  }

  /**
   * The bookkeeping of the input that waited, in the order it was written: the paste limit,
   * Enter (a continuation prompt answered), and the detector's copy.
   */
  private takeInput(): void {
    if (this.waitingInput.length === 0) return;
    const waiting = this.waitingInput;
    this.waitingInput = [];
    for (const { data: written, at } of waiting) {
      const detector = this.detector;
      if (!detector) return;
      try {
        // The paste limiter keeps a pending paste's start: the copy is its own.
        const data = this.pasteLimiter.filter(written);
        // Input answers a continuation prompt (the detector, in the worker, follows). Only a
        // preset that has one shows it: the input is followed here only then (the worker
        // follows every keystroke anyway).
        if (this.hasContinuation) {
          for (const ev of this.inputs.feed(data)) {
            if (ev.type === 'submit') this._awaitingMore = false;
          }
        }
        detector.input(data, at);
      } catch (err) {
        this.events.error(err);
      }
    }
  }

  /**
   * The open turn's text so far, extracted as the completed turn's will be (null: no turn open,
   * the session is blocked, or no detector runs): for showing an answer while it grows.
   */
  partialText(): Promise<string | null> {
    return this.detector?.partialText() ?? Promise.resolve(null);
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
    this.waitingInput = [];
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

  /**
   * The agent's record says the open turn ended: the detector completes it once its screen
   * shows the prompt, after a shorter quiet wait, and with the record's answer drawn to its end
   * (see TurnDetector.recordedEnd).
   */
  private recordedEnd(startedAt: number, answer: string | null): void {
    // Only the answer's last words cross to the worker: all the screen is checked for.
    this.detector?.recordedEnd(startedAt, answer === null ? null : answerTail(answer));
  }

  /** What the detector in the worker said. */
  private onDetectorReply(reply: Parameters<DetectorListener['onReply']>[0]): void {
    if (this.ended) return;
    if ('error' in reply) {
      this.events.error(new Error(`turn detector: ${reply.error}`));
      return;
    }
    try {
      if ('events' in reply) {
        this.handleEvents(reply.events);
        return;
      }
      this.status = reply.status;
      // The open turn (a new one, or none now) is followed in the agent's record.
      if (this.channel && this.presetKind === 'screen') {
        const turn =
          reply.status.startedAt === null
            ? null
            : { input: reply.status.input, startedAt: reply.status.startedAt };
        this.channel.follow(turn, (startedAt, answer) => this.recordedEnd(startedAt, answer));
      }
      // A submit taken, the input box read: the waits look again.
      this.notify();
    } catch (err) {
      this.events.error(err);
    }
  }

  /** The detector is gone for good; output goes on without detection. */
  private stopDetection(reason: string): void {
    if (this.ended || !this.detector) return;
    this.detector = null;
    this._detectionStopped = reason;
    this.events.stopped?.(reason);
    this.notify();
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

  private store(turn: NewTurn): StoredTurn {
    const stored = this.ring.add(turn);
    // Someone waits for this answer (ask, wait): it shows it to the user itself.
    if ([...this.waiters].some((w) => stored.seq > w.after)) this.lastAwaitedSeq = stored.seq;
    this.events.turn(stored);
    for (const w of [...this.waiters]) if (stored.seq > w.after) w.resolve(stored);
    return stored;
  }
}
