// What a turn watcher reports and the one interface both watchers (line and screen) offer.
import type { Menu } from './menu.js';
import type { ChunkScan, OutputScanOptions } from './output-scan.js';
import type { Preset } from './preset-types.js';

export type SessionState = 'starting' | 'idle' | 'busy' | 'blocked';

/** The rendered screen of a session, as the broker's screen model sees it. */
export interface ScreenSnapshot {
  /** Whole buffer: scrollback + viewport, rendered text, right-trimmed. */
  lines: string[];
  viewportTop: number;
  rows: number;
  cols: number;
}

export type DetectorEvent =
  | { type: 'ready'; at: number }
  | { type: 'state'; state: SessionState; at: number }
  | {
      type: 'turn';
      content: Uint8Array;
      text: string;
      /** The prompt line (line presets) or input line (screen presets) that ended the turn. */
      prompt: string;
      /** The submitted input that opened the turn (what was typed or pasted before Enter). */
      input: string;
      interrupted: boolean;
      truncated: boolean;
      startedAt: number;
      endedAt: number;
    }
  /** Line presets: the program shows its continuation prompt (it wants more input for the
   * open turn, which stays open); the state is `blocked` until input follows. */
  | { type: 'continuation'; prompt: string; at: number }
  /**
   * The question a `blocked` session asks and its choices (readMenu), or null when its screen
   * shows none: reported just before the `blocked` state, and again whenever it changes while
   * blocked (the cursor moved).
   */
  | { type: 'menu'; menu: Menu | null; at: number };

export interface TurnDetectorOptions {
  preset: Preset;
  /** Longest content kept per turn (default 4 MiB); longer content is cut and flagged truncated. */
  maxTurnBytes?: number;
  /** The terminal's width: a long input line wraps on it, and its echo is followed that way. */
  cols?: number;
}

/**
 * A session's turn watcher, as a pure state machine: it is fed output, input and (screen
 * presets) rendered screens with the time, and ticked at nextDeadline(). It never delays or
 * changes output; it only reports events. LineWatcher follows a shell's or REPL's prompt lines,
 * ScreenWatcher an agent's rendered screen.
 */
export interface TurnWatcher {
  /** Whether it reads rendered screens (onScreen): a screen preset's. */
  readonly needsScreen: boolean;
  readonly state: SessionState;
  /** A turn is open: input was submitted and its prompt has not been seen since. */
  readonly turnOpen: boolean;
  /** The open turn: its input (as the completed turn's `input` will be) and start; null: none. */
  readonly currentTurn: { input: string; startedAt: number } | null;
  /** Screen presets: submits seen and the latest one taken (line presets: none). */
  readonly submits: { sent: number; taken: number };
  /** Screen presets: loading screens (box gone, keys dropped) begun so far (else 0). */
  readonly loads: number;
  /** What a caller's scan of the output must collect to be passed to onOutput. */
  readonly scanNeeds: Omit<OutputScanOptions, 'lines'>;
  resize(cols: number): void;
  /** Output (kept as views, never copied: the caller never changes `chunk` afterwards). */
  onOutput(chunk: Uint8Array, now: number, scan?: ChunkScan): DetectorEvent[];
  onInput(data: Uint8Array, now: number): DetectorEvent[];
  onScreen(snap: ScreenSnapshot, now: number): DetectorEvent[];
  tick(now: number): DetectorEvent[];
  /** When tick() wants calling next, or null; never a time already looked at. */
  nextDeadline(): number | null;
  dropUntaken(now: number): DetectorEvent[];
  /**
   * Screen presets: the agent's own record says the open turn (the one started at `startedAt`)
   * has ended. The turn still completes only once the screen shows the agent's prompt, but
   * after a shorter quiet wait (RECORDED_SETTLE_MS); `tail`, the end of the record's answer
   * (answerTail), tells when a streamed answer is drawn whole. Line presets: nothing.
   */
  recordedEnd(startedAt: number, now: number, tail?: string | null): DetectorEvent[];
  inputShows(text: string): boolean | null;
  /** Screen presets: the input line of the latest screen while it is idle (else null). */
  readonly inputLine: string | null;
  /** Screen presets: the latest screen shows the preset's `interruptArmed` (else false). */
  readonly interruptArmed: boolean;
  partialText(): string | null;
}
