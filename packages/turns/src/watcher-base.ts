// What the line and the screen watcher share: the session's state and readiness, the keys typed
// (InputTracker), the output offset, the open turn and how a turn is reported.
import { DEFAULT_MAX_TURN_BYTES } from './constants.js';
import { InputTracker, type InputEvent } from './input-tracker.js';
import type { Menu } from './menu.js';
import { multilineForm, unwrapMultiline } from './multiline.js';
import { turnContent, type OpenTurn } from './open-turn.js';
import { OutputScan, type ChunkScan, type OutputScanOptions } from './output-scan.js';
import type { CompiledPreset } from './presets.js';
import type {
  DetectorEvent,
  ScreenSnapshot,
  SessionState,
  TurnDetectorOptions,
  TurnWatcher,
} from './turn-watcher.js';

/** Enter, and what it submits. */
export type Submit = Extract<InputEvent, { type: 'submit' }>;

export abstract class WatcherBase<T extends OpenTurn> implements TurnWatcher {
  abstract readonly needsScreen: boolean;
  protected readonly maxTurnBytes: number;
  protected readonly input = new InputTracker();
  protected cols: number | undefined;
  protected _state: SessionState = 'starting';
  protected ready = false;
  protected turn: T | null = null;
  /** Total output bytes seen; offsets are in this space. */
  protected outAbs = 0;
  protected outputSeq = 0;
  protected lastOutputAt = Number.NEGATIVE_INFINITY;
  /** The menu last reported while blocked (its JSON), to report changes only. */
  private menuKey: string | null = null;
  /** The scan of output made here when the caller passes none (see onOutput). */
  private ownScan: OutputScan | null = null;

  constructor(
    protected readonly c: CompiledPreset,
    opts: Omit<TurnDetectorOptions, 'preset'>,
  ) {
    this.maxTurnBytes = Math.max(0, opts.maxTurnBytes ?? DEFAULT_MAX_TURN_BYTES);
    this.cols = opts.cols;
  }

  /** The terminal was resized (a later input's echo wraps at the new width). */
  resize(cols: number): void {
    this.cols = cols > 0 ? cols : undefined;
  }

  get state(): SessionState {
    return this._state;
  }

  get turnOpen(): boolean {
    return this.turn !== null;
  }

  get currentTurn(): { input: string; startedAt: number } | null {
    const t = this.turn;
    if (!t) return null;
    // Asked after every output chunk: the input is worked out only when it is read (a reader
    // that sees the same startedAt reads no further).
    const inputOf = () => this.inputOf(t);
    return {
      startedAt: t.startedAt,
      get input() {
        return inputOf();
      },
    };
  }

  get submits(): { sent: number; taken: number } {
    return { sent: 0, taken: 0 };
  }

  /** Loading screens seen begin (screen presets with `loading` markers; else 0). */
  get loads(): number {
    return 0;
  }

  /** What a scan of the output must collect for this watcher (see onOutput). */
  abstract readonly scanNeeds: Omit<OutputScanOptions, 'lines'>;

  /**
   * Output, and its scan: made by the caller's OutputScan (with at least `scanNeeds`) when it
   * scans the stream anyway, else here. A caller passes it for every chunk or for none. The
   * chunk is kept as it is (views of it, never copies): the caller never changes it afterwards.
   */
  onOutput(chunk: Uint8Array, now: number, scan?: ChunkScan): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    if (chunk.length === 0) return events;
    this.lastOutputAt = now;
    this.outputSeq++;
    this.output(
      chunk,
      now,
      events,
      scan ?? (this.ownScan ??= new OutputScan(this.scanNeeds)).scan(chunk),
    );
    return events;
  }

  onInput(data: Uint8Array, now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    for (const ev of this.input.feed(data)) {
      if (ev.type === 'interrupt') {
        const t = this.turn;
        if (t) {
          if (!t.interrupted) t.interruptAbs = this.outAbs;
          t.interrupted = true;
        }
      } else if (ev.type === 'escape') this.escape();
      // Input typed before the first prompt is not an answer to it: no turn starts.
      else if (this.ready) this.submit(ev, now, events);
    }
    return events;
  }

  onScreen(_snap: ScreenSnapshot, _now: number): DetectorEvent[] {
    return [];
  }

  dropUntaken(_now: number): DetectorEvent[] {
    return [];
  }

  recordedEnd(_startedAt: number, _now: number, _tail?: string | null): DetectorEvent[] {
    return [];
  }

  inputShows(_text: string): boolean | null {
    return null;
  }

  get inputLine(): string | null {
    return null;
  }

  get interruptArmed(): boolean {
    return false;
  }

  /**
   * The text of the open turn so far, as `text` would be if it completed now (the same
   * extraction: echo, input box and chrome removed); null when no turn is open. For showing an
   * answer while it grows: what is shown may still change before the turn completes (a
   * redrawn line, a status line the end removes). Null while the session is blocked (a dialog
   * on the screen is no part of the answer).
   */
  partialText(): string | null {
    const turn = this.turn;
    if (!turn || !this.ready || this._state === 'blocked') return null;
    return this.partialOf(turn);
  }

  abstract tick(now: number): DetectorEvent[];
  abstract nextDeadline(): number | null;
  /** Output (not empty) and its scan, after its time and sequence are noted. */
  protected abstract output(
    chunk: Uint8Array,
    now: number,
    events: DetectorEvent[],
    scan: ChunkScan,
  ): void;
  /** Enter, with the session ready. */
  protected abstract submit(ev: Submit, now: number, events: DetectorEvent[]): void;
  /** A lone Esc key press. */
  protected abstract escape(): void;
  protected abstract partialOf(turn: T): string | null;
  /** Opens a turn for `typed` (replacing any open one). */
  protected abstract openTurn(typed: string, now: number, joined?: T): void;
  /** Whether a completed turn shows anything: no empty turns are reported. */
  protected abstract visible(turn: T, content: Uint8Array, text: string): boolean;

  /** Enter with no turn open: the submit opens one and the session works on it. */
  protected startTurn(ev: Submit, now: number, events: DetectorEvent[]): void {
    this.openTurn(ev.text, now);
    this.turn!.edited = ev.edited === true;
    this.setState('busy', now, events);
  }

  /** The turn ended at output offset `contentEnd`: reported (when it shows anything), idle. */
  protected closeTurn(
    turn: T,
    contentEnd: number,
    prompt: string,
    now: number,
    events: DetectorEvent[],
    textOf: (content: Uint8Array) => string,
  ): void {
    this.turn = null;
    const { content, truncated } = turnContent(turn, contentEnd, this.maxTurnBytes);
    const text = textOf(content);
    if (this.visible(turn, content, text)) {
      events.push({
        type: 'turn',
        content,
        text,
        prompt,
        input: this.inputOf(turn),
        interrupted: turn.interrupted,
        truncated,
        startedAt: turn.startedAt,
        endedAt: now,
      });
    }
    this.setState('idle', now, events);
  }

  /** What was submitted, as the detector followed it: all lines of a multi-line input. */
  private inputOf(turn: T): string {
    return unwrapMultiline(turn.shownInput ?? turn.typed, multilineForm(this.c.preset));
  }

  protected setState(state: SessionState, now: number, events: DetectorEvent[]): void {
    if (this._state === state) return;
    this._state = state;
    if (state !== 'blocked') this.menuKey = null;
    events.push({ type: 'state', state, at: now });
  }

  /** Reports the menu of a blocked screen when it differs from the one reported last. */
  protected reportMenu(menu: Menu | null, now: number, events: DetectorEvent[]): void {
    const key = JSON.stringify(menu);
    if (key === this.menuKey) return;
    this.menuKey = key;
    events.push({ type: 'menu', menu, at: now });
  }

  protected becomeReady(now: number, events: DetectorEvent[]): void {
    this.ready = true;
    events.push({ type: 'ready', at: now });
    this.setState('idle', now, events);
  }
}
