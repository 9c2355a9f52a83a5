// The per-session turn detector of the turn contract: the watcher its preset needs (a line
// preset's LineWatcher, a screen preset's ScreenWatcher) behind one face.
import { LineWatcher } from './line-watcher.js';
import type { ChunkScan, OutputScanOptions } from './output-scan.js';
import type { Preset } from './preset-types.js';
import { compilePreset, type CompiledPreset } from './presets.js';
import { ScreenWatcher } from './screen-watcher.js';
import type * as W from './turn-watcher.js';

export type * from './turn-watcher.js';

/**
 * The per-session turn detector, as a pure state machine: the broker feeds it output, input
 * and (for screen presets) rendered screens, with the time, and calls tick() at nextDeadline().
 * It never delays or changes output; it only reports events.
 */
export class TurnDetector implements W.TurnWatcher {
  private readonly c: CompiledPreset;
  private readonly watcher: W.TurnWatcher;

  constructor(opts: W.TurnDetectorOptions) {
    this.c = compilePreset(opts.preset);
    this.watcher =
      this.c.preset.kind === 'screen'
        ? new ScreenWatcher(this.c, opts)
        : new LineWatcher(this.c, opts);
  }

  get needsScreen(): boolean {
    return this.watcher.needsScreen;
  }

  /** The preset this session runs with (frozen: a session's pattern never changes). */
  get preset(): Readonly<Preset> {
    return this.c.preset;
  }

  get state(): W.SessionState {
    return this.watcher.state;
  }

  /** A turn is open: input was submitted and its prompt has not been seen since. */
  get turnOpen(): boolean {
    return this.watcher.turnOpen;
  }

  /** The open turn: its input (as the completed turn's `input` will be) and start; null: none. */
  get currentTurn(): { input: string; startedAt: number } | null {
    return this.watcher.currentTurn;
  }

  /**
   * Screen presets: how many submits (Enter at the agent's input box) were seen, and the number
   * of the latest one the agent took (its text left the input box, or it shows work or a
   * question). An injection confirms its Enter with these; an Enter the agent has not taken
   * opens no turn that could complete.
   */
  get submits(): { sent: number; taken: number } {
    return this.watcher.submits;
  }

  /**
   * Screen presets: how many loading screens (the preset's `loading` markers: the input box
   * gone, keys typed dropped) began so far.
   */
  get loads(): number {
    return this.watcher.loads;
  }

  /** The terminal was resized (a later input's echo wraps at the new width). */
  resize(cols: number): void {
    this.watcher.resize(cols);
  }

  /**
   * What an OutputScan must collect for its scans to be passed to onOutput: a caller that scans
   * the stream anyway (the broker's pipeline) parses each byte once for everyone.
   */
  get scanNeeds(): Omit<OutputScanOptions, 'lines'> {
    return this.watcher.scanNeeds;
  }

  /**
   * Output, with its scan when the caller made one (see scanNeeds; for every chunk or none).
   * Kept as views, never copied: the caller never changes `chunk` afterwards.
   */
  onOutput(chunk: Uint8Array, now: number, scan?: ChunkScan): W.DetectorEvent[] {
    return this.watcher.onOutput(chunk, now, scan);
  }

  onInput(data: Uint8Array, now: number): W.DetectorEvent[] {
    return this.watcher.onInput(data, now);
  }

  /** Screen presets: a rendered screen (line presets read none). */
  onScreen(snap: W.ScreenSnapshot, now: number): W.DetectorEvent[] {
    return this.watcher.onScreen(snap, now);
  }

  tick(now: number): W.DetectorEvent[] {
    return this.watcher.tick(now);
  }

  nextDeadline(): number | null {
    return this.watcher.nextDeadline();
  }

  /**
   * Screen presets: the agent did not take the open turn's submit (an injection gave up on
   * it): there is no turn, the session waits for input again.
   */
  dropUntaken(now: number): W.DetectorEvent[] {
    return this.watcher.dropUntaken(now);
  }

  /**
   * Screen presets: the agent's own record says the open turn (started at `startedAt`) ended:
   * it completes once its screen shows the prompt, after RECORDED_SETTLE_MS of quiet instead of
   * the preset's settle window; `tail`, the end of the record's answer (answerTail), tells when a
   * streamed answer is drawn whole (Preset.answerRedrawMs). Line presets: nothing.
   */
  recordedEnd(startedAt: number, now: number, tail?: string | null): W.DetectorEvent[] {
    return this.watcher.recordedEnd(startedAt, now, tail);
  }

  /**
   * Screen presets: whether the input box of the latest screen shows `text` (typed or pasted,
   * not submitted yet): the agent read it. Null for line presets.
   */
  inputShows(text: string): boolean | null {
    return this.watcher.inputShows(text);
  }

  /**
   * Screen presets: the input line of the latest screen while it is idle (null otherwise, and for
   * line presets); `inputHolds(inputLine, text)` is what `inputShows(text)` answers.
   */
  get inputLine(): string | null {
    return this.watcher.inputLine;
  }

  /**
   * Screen presets: the latest screen shows the preset's `interruptArmed` (the agent read one of
   * its interrupt keys and waits for the next); false otherwise.
   */
  get interruptArmed(): boolean {
    return this.watcher.interruptArmed;
  }

  /**
   * The text of the open turn so far, as `text` would be if it completed now; null when no turn
   * is open, while the session is blocked, and for a line preset's turn too long to render
   * again for each look (see WatcherBase.partialText).
   */
  partialText(): string | null {
    return this.watcher.partialText();
  }
}
