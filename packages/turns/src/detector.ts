import { AltScreenScanner } from './alt-screen.js';
import { AnsiStripper, stripAnsi } from './ansi-stripper.js';
import { classifyLines, type Classification } from './classify.js';
import {
  DEFAULT_BOTTOM_LINES,
  DEFAULT_MAX_TURN_BYTES,
  ECHO_MIN_PREFIX_CHARS,
  MAX_ECHO_EXTRA_LINES,
  MAX_ECHO_PHASE_BYTES,
  MAX_IDLE_RAW_BYTES,
  MAX_LINE_CHARS,
  NO_REACTION_MS,
  PROMPT_QUIET_MS,
  PROMPT_SCAN_BYTES,
} from './constants.js';
import { answerEnd, echoEnd, extractAnswer } from './extract.js';
import { inputHolds } from './input-box.js';
import { OscScanner } from './osc-scanner.js';
import { InputTracker } from './input-tracker.js';
import { readMenu, type Menu } from './menu.js';
import type { Preset } from './preset-types.js';
import { compilePreset, type CompiledPreset } from './presets.js';
import { firstMatch, screenLines } from './screen-lines.js';
import { TextRenderer } from './text-renderer.js';
import type { LineRegex } from './user-regex.js';

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

/** A turn in progress: from the user's submit to the next prompt. */
interface OpenTurn {
  typed: string;
  startedAt: number;
  interrupted: boolean;
  /** Output offset at submit. */
  startAbs: number;
  /** Where content starts (after the echo); known once the echo phase is over. */
  contentStartAbs: number;
  /** Line presets: still reading the echo of the typed text (see followEcho). */
  echoPhase: boolean;
  /** The input line as the terminal shows it: the prompt line before Enter, then the echo. */
  echo: TextRenderer | null;
  /** The typed lines without whitespace (echo lines are compared without it: wraps, indents),
   * and all of them joined. */
  echoWantLines: string[];
  echoWant: string;
  /** Its first line, and its last characters (a cheap test before the whole is compared). */
  echoFirst: string;
  echoTail: string;
  /** Lines of the typed text, and line feeds seen in the echo so far. */
  echoLines: number;
  echoNewlines: number;
  /** Offset just after the last output byte known to be echo. */
  echoLastEnd: number;
  /** Stored raw bytes, starting at bufBaseAbs, at most bufCap of them. */
  chunks: Uint8Array[];
  bufBaseAbs: number;
  bufCap: number;
  outputBytes: number;
  /** Screen presets: the viewport changed after the submit. */
  screenChanged: boolean;
  /** Screen presets: the number of this submit (see `submits`). */
  submitSeq: number;
  /** Screen presets: the agent took the submit (the text left its input box; it works or asks). */
  accepted: boolean;
  /** Screen presets: a screen since the text was input showed it in the input box. */
  seenHeld: boolean;
  /** Screen presets: the agent showed it worked on the submit (a busy screen or report). */
  worked: boolean;
  /** Screen presets: the viewport's first buffer line at submit (the answer is below it). */
  viewportTopAtSubmit: number | undefined;
  /** Rows below the prompt line the echo may reach (its lines, wrapped at the width). */
  echoRows: number;
  /** Line presets: the program shows its continuation prompt; the line starts here. */
  moreAt: number | null;
  /** Output offset when Ctrl-C was first pressed (its `^C` echo follows), or -1. */
  interruptAbs: number;
  /** Keys the input tracker cannot follow edited the line (↑, Tab, ←…): `typed` may be wrong,
   * and `shownInput` (line presets: the echo's line after the prompt at Enter) is the input. */
  edited: boolean;
  shownInput: string | null;
  /** A full-screen program showed the alternate screen during the turn. */
  usedAlt: boolean;
}

/**
 * The per-session turn detector of the turn contract, as a pure state machine: the broker feeds
 * it output, input and (for screen presets) rendered screens, with the time, and calls tick() at
 * nextDeadline(). It never delays or changes output; it only reports events.
 */
export class TurnDetector {
  readonly needsScreen: boolean;
  private readonly c: CompiledPreset;
  private readonly maxTurnBytes: number;
  private readonly stripper = new AnsiStripper();
  private readonly input = new InputTracker();
  private readonly alt = new AltScreenScanner();
  /** The alternate screen is shown (line presets): nothing on it is a prompt. */
  private altOn = false;
  private cols: number | undefined;
  private _state: SessionState = 'starting';
  private ready = false;
  private turn: OpenTurn | null = null;

  /** Total output bytes seen; offsets below are in this space. */
  private outAbs = 0;
  private outputSeq = 0;
  private lastOutputAt = Number.NEGATIVE_INFINITY;

  // Line presets: the current (unterminated) line.
  private lineStartAbs = 0;
  private lineText = '';
  private lineDirty = false;
  private lineMatchedAt = -1;
  /** The stripped text of the last prompt (without leading CRs): where the next one begins. */
  private prevPrompt = '';
  /** Raw output while no turn is open, from the last prompt's line (bounded): Enter's echo
   * redraws it. `idleBaseAbs` is the offset of its first byte. */
  private idleParts: Uint8Array[] = [];
  private idleBytes = 0;
  private idleBaseAbs = 0;

  // Screen presets: the latest screen and how long it has been unchanged.
  private screenKey: string | null = null;
  private screenSeq = -1;
  private lastChangeAt = Number.NEGATIVE_INFINITY;
  private lastLines: string[] = [];
  private lastViewport: string[] = [];
  private lastViewportTop: number | undefined;
  private lastClass: (Classification & { inputIndex: number }) | null = null;
  /** The menu last reported while blocked (its JSON), to report changes only. */
  private menuKey: string | null = null;
  /**
   * Screen presets: the dialog Enter answered (its question and choices) and when. The screen
   * may show it a moment longer — the agent draws the cursor's last move before it closes the
   * dialog — which is not the question asked again.
   */
  private answered: { dialog: string; at: number } | null = null;
  /** Screen presets: the latest time the screen was evaluated (a deadline up to it is spent). */
  private evaluatedAt = Number.NEGATIVE_INFINITY;
  /** Screen presets: the agent's own reports of its state (OSC sequences) and the latest one. */
  private readonly osc: OscScanner | null;
  private signal: 'idle' | 'busy' | 'blocked' | null = null;
  /** Screen presets: submits (Enter with the agent ready) so far, and the latest one it took. */
  private submitCount = 0;
  private takenCount = 0;

  constructor(opts: TurnDetectorOptions) {
    this.c = compilePreset(opts.preset);
    this.maxTurnBytes = Math.max(0, opts.maxTurnBytes ?? DEFAULT_MAX_TURN_BYTES);
    this.needsScreen = this.c.preset.kind === 'screen';
    this.cols = opts.cols;
    const signals =
      this.c.busySignal.length + this.c.idleSignal.length + this.c.blockedSignal.length;
    this.osc = this.needsScreen && signals > 0 ? new OscScanner() : null;
  }

  /** The terminal was resized (a later input's echo wraps at the new width). */
  resize(cols: number): void {
    this.cols = cols > 0 ? cols : undefined;
  }

  get state(): SessionState {
    return this._state;
  }

  /**
   * Screen presets: how many submits (Enter at the agent's input box) were seen, and the number
   * of the latest one the agent took (its text left the input box, or it shows work or a
   * question). An injection confirms its Enter with these; an Enter the agent has not taken
   * opens no turn that could complete.
   */
  get submits(): { sent: number; taken: number } {
    return { sent: this.submitCount, taken: this.takenCount };
  }

  /**
   * Screen presets: the agent did not take the open turn's submit (an injection gave up on
   * it): there is no turn, the session waits for input again.
   */
  dropUntaken(now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    if (!this.needsScreen || !this.turn || this.turn.accepted) return events;
    this.turn = null;
    this.setState('idle', now, events);
    return events;
  }

  /** The preset this session runs with (frozen: a session's pattern never changes). */
  get preset(): Readonly<Preset> {
    return this.c.preset;
  }

  onOutput(chunk: Uint8Array, now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    if (chunk.length === 0) return events;
    this.lastOutputAt = now;
    this.outputSeq++;
    if (this.needsScreen) {
      if (this.turn) {
        this.store(this.turn, chunk, this.outAbs);
        this.turn.outputBytes += chunk.length;
      }
      this.outAbs += chunk.length;
      if (this.osc) for (const payload of this.osc.scan(chunk)) this.onSignal(payload);
      return events;
    }
    const switches = this.alt.scan(chunk);
    if (switches.length === 0) this.lineOutput(chunk, now, events);
    else {
      let from = 0;
      for (const sw of switches) {
        this.lineOutput(chunk.subarray(from, sw.end), now, events);
        from = sw.end;
        this.altOn = sw.on;
        if (sw.on && this.turn) this.turn.usedAlt = true;
        if (!sw.on) {
          // Keys typed into the full-screen program were its own, not the start of an input.
          this.input.clear();
          // Back on the main screen: the line under the cursor starts afresh.
          this.lineText = '';
          this.lineDirty = false;
          this.lineStartAbs = this.outAbs;
        }
      }
      if (from < chunk.length) this.lineOutput(chunk.subarray(from), now, events);
    }
    return events;
  }

  private lineOutput(chunk: Uint8Array, now: number, events: DetectorEvent[]): void {
    const text = this.stripper.push(chunk);
    const newlines = this.stripper.lastNewlines;
    const base = this.outAbs;
    const turn = this.turn;
    if (turn) {
      this.store(turn, chunk, base);
      turn.outputBytes += chunk.length;
    } else this.keepIdle(chunk, base);
    this.outAbs += chunk.length;
    if (turn?.echoPhase) this.followEcho(turn, chunk, base, newlines);
    this.lineTextIn(text, now, events, newlines, base);
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
        continue;
      }
      if (ev.type === 'escape') {
        // TUIs (Claude Code, Codex, Gemini, Copilot) stop working on Esc; a dialog's Esc is an answer.
        if (this.needsScreen && this.turn && this._state === 'busy') this.turn.interrupted = true;
        continue;
      }
      // Input typed before the first prompt is not an answer to it: no turn starts.
      if (!this.ready) continue;
      const t = this.turn;
      if (this.needsScreen && t && !t.accepted) {
        // Enter again while the agent has not taken the last one (its text waits in the input
        // box): this Enter submits that text, or the text typed since.
        this.openTurn(ev.text.trim() === '' ? t.typed : ev.text, now);
        continue;
      }
      if (t && t.outputBytes === 0) {
        // Nothing answered the previous submit yet. Screen presets: Enter on an empty input box,
        // this input replaces it. Line presets: lines submitted together (a multi-line text
        // typed into a program without bracketed paste) are one input, echoed line by line.
        if (this.needsScreen) this.openTurn(ev.text, now);
        else this.openTurn(`${t.typed}\n${ev.text}`, now, t);
        continue;
      }
      // The continuation prompt was drawn and this line typed ahead onto it before a quiet
      // moment let the line be checked (`... ))` under load): the same as seeing it first.
      if (t && t.moreAt === null && this.typedAfterContinuation(t, ev.text)) {
        t.moreAt = this.lineStartAbs;
      }
      if (t?.moreAt != null) {
        // More input at the continuation prompt: the same turn goes on, its echo follows.
        this.continueTurn(t, ev.text);
        this.setState('busy', now, events);
        continue;
      }
      const shownPrompt = t && !this.needsScreen ? this.typedAfterPrompt(t, ev.text) : null;
      if (t && shownPrompt !== null) {
        // The prompt was drawn and typed-ahead text echoed right after it (no pause in which to
        // see it): the open turn ended at that prompt, and this submit opens the next.
        const lineStart = this.lineStartAbs;
        this.lineMatchedAt = lineStart;
        this.seedIdle(t, lineStart);
        const end = Math.max(lineStart, t.contentStartAbs);
        this.closeTurn(t, end, shownPrompt, now, events, (content) => this.lineText_(content, t));
        this.openTurn(ev.text, now);
        this.setState('busy', now, events);
        continue;
      }
      if (this.altOn && !t) continue; // keys of a full-screen program are no prompt's input
      if (t) {
        // Answering a question mid-turn (aider's "(Y)es/(N)o", a dialog): same turn.
        if (this._state === 'blocked') {
          if (this.needsScreen) this.answered = { dialog: dialogOf(this.lastViewport), at: now };
          this.setState('busy', now, events);
        }
        continue;
      }
      this.openTurn(ev.text, now);
      this.turn!.edited = ev.edited === true;
      this.setState('busy', now, events);
    }
    return events;
  }

  onScreen(snap: ScreenSnapshot, now: number): DetectorEvent[] {
    if (!this.needsScreen) return [];
    const viewport = snap.lines.slice(snap.viewportTop, snap.viewportTop + snap.rows);
    const key = viewport.join('\n');
    if (key !== this.screenKey) {
      this.screenKey = key;
      this.lastChangeAt = now;
      if (this.turn) this.turn.screenChanged = true;
    }
    this.screenSeq = this.outputSeq;
    this.lastLines = snap.lines;
    this.lastViewportTop = snap.viewportTop;
    this.lastViewport = screenLines(viewport);
    this.lastClass = classifyLines(this.lastViewport, this.c);
    if (this.turn && this.lastClass.state === 'busy') this.turn.worked = true;
    return this.evaluateScreen(now);
  }

  tick(now: number): DetectorEvent[] {
    if (this.needsScreen) return this.evaluateScreen(now);
    const events: DetectorEvent[] = [];
    if (this.lineDirty && now - this.lastOutputAt >= PROMPT_QUIET_MS) {
      this.lineDirty = false;
      const t = this.turn;
      // An echo still unfinished when a prompt waits on a later line: it is over.
      if (
        t?.echoPhase &&
        this.lineStartAbs > t.startAbs &&
        this.c.pattern &&
        t.echoNewlines >= t.echoLines - 1
      ) {
        if (matchPrompt(this.c.pattern, this.lineText) !== null) this.endEcho(t, t.echoLastEnd);
      }
      this.checkLine(this.lineText, this.lineStartAbs, now, events, false);
    }
    return events;
  }

  nextDeadline(): number | null {
    if (this.needsScreen) {
      const deadline = this.screenDeadline();
      // A screen already looked at on or after its deadline changes only with new output or
      // input: asking for the same deadline again would have the caller tick at once, for good
      // (a turn whose submit the agent has not taken yet stays so; the daemon's timer spun).
      return deadline !== null && deadline <= this.evaluatedAt ? null : deadline;
    }
    const t = this.turn;
    const echoOpen = t !== null && t.echoPhase && this.lineStartAbs > t.startAbs;
    return this.lineDirty && (echoOpen || this.lineIsCandidate(this.lineStartAbs))
      ? this.lastOutputAt + PROMPT_QUIET_MS
      : null;
  }

  /** When the screen should be looked at again, whatever was looked at already. */
  private screenDeadline(): number | null {
    if (!this.waitingForIdle()) return null; // idle is latched until new input
    // A dialog still shown after Enter answered it is looked at again when it has stayed.
    if (this.answered && this.lastClass?.state === 'blocked')
      return this.answered.at + ANSWERED_DIALOG_MS;
    if (
      this.lastClass?.state !== 'idle' ||
      !this.screenFresh() ||
      (this.signal !== null && this.signal !== 'idle')
    )
      return null;
    const t = this.turn;
    if (t && t.outputBytes === 0 && t.typed.trim() === '') return t.startedAt + NO_REACTION_MS;
    return this.lastChangeAt + this.c.settleMs;
  }

  // ---- line presets -------------------------------------------------------------------------

  /**
   * Follows lines in the stripped text of output that started at byte offset `base`;
   * `newlines[k]` is the byte index (from `base`) of the k-th line feed in `text`.
   */
  private lineTextIn(
    text: string,
    now: number,
    events: DetectorEvent[],
    newlines: readonly number[],
    base: number,
  ): void {
    if (text === '') return;
    let from = 0;
    // Where the next possible prompt starts (one scan for the whole block, not a regex test per
    // line: a flood is hundreds of thousands of lines). The first line may begin in earlier
    // output, so it is always checked in full.
    const prefilter = this.c.linePrefilter;
    let nextMatch = -1;
    for (let k = 0; k < newlines.length; k++) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      const start = this.lineStartAbs;
      this.lineStartAbs = base + newlines[k]! + 1;
      if (k > 0 && prefilter && this.lineText === '') {
        if (nextMatch < from) {
          prefilter.lastIndex = from;
          nextMatch = prefilter.exec(text)?.index ?? Number.POSITIVE_INFINITY;
        }
        if (nextMatch > nl) {
          // No match starts in this line: the pattern cannot match it.
          this.lineDirty = false;
          from = nl + 1;
          continue;
        }
      }
      const line = this.lineText + text.slice(from, nl);
      this.lineText = '';
      this.lineDirty = false;
      this.checkLine(line, start, now, events, true);
      from = nl + 1;
    }
    if (from < text.length) {
      this.lineText += from === 0 ? text : text.slice(from);
      if (this.lineText.length > 2 * MAX_LINE_CHARS)
        this.lineText = this.lineText.slice(-MAX_LINE_CHARS);
      this.lineDirty = true;
    }
  }

  /** A line can be a prompt before the first one (ready) or after the content of a turn began. */
  private lineIsCandidate(lineStart: number): boolean {
    // A full-screen program's screen holds no prompt, whatever its lines end with.
    if (this.altOn) return false;
    if (!this.ready) return lineStart !== this.lineMatchedAt;
    const t = this.turn;
    return t !== null && !t.echoPhase && lineStart >= t.contentStartAbs;
  }

  private checkLine(
    line: string,
    lineStart: number,
    now: number,
    events: DetectorEvent[],
    terminated: boolean,
  ): void {
    if (!this.lineIsCandidate(lineStart) || !this.c.pattern) return;
    const prompt = matchPrompt(this.c.pattern, line);
    const turnNow = this.turn;
    if (
      prompt === null &&
      !terminated &&
      turnNow &&
      turnNow.moreAt === null &&
      this.c.continuation &&
      matchPrompt(this.c.continuation, line) !== null
    ) {
      turnNow.moreAt = lineStart;
      events.push({ type: 'continuation', prompt: withoutLeadingCr(line), at: now });
      this.setState('blocked', now, events);
      return;
    }
    if (prompt === null) {
      // A question waits on the last, unterminated line; once answered its line ends.
      if (
        !terminated &&
        this.turn &&
        this._state === 'busy' &&
        firstMatch(this.c.blocked, line) >= 0
      ) {
        this.reportMenu(readMenu(this.renderedTail(this.turn)), now, events);
        this.setState('blocked', now, events);
      }
      return;
    }
    this.lineMatchedAt = lineStart;
    if (!this.ready) {
      this.prevPrompt = withoutLeadingCr(line);
      this.trimIdle(lineStart);
      this.becomeReady(now, events);
      return;
    }
    const turn = this.turn!;
    // Output left without a final newline shares the prompt's line: it is part of the answer.
    const promptAt = terminated ? lineStart : this.promptStart(turn, line, lineStart);
    const contentEnd = Math.max(promptAt, turn.contentStartAbs);
    this.seedIdle(turn, lineStart);
    this.closeTurn(turn, contentEnd, prompt, now, events, (content) =>
      this.lineText_(content, turn),
    );
  }

  /** Whether the unterminated line is a prompt followed by the echo of `typed` (typed ahead). */
  private typedAfterPrompt(turn: OpenTurn, typed: string): string | null {
    if (typed.trim() === '' || turn.echoPhase || !this.c.pattern) return null;
    if (!this.lineIsCandidate(this.lineStartAbs)) return null;
    const line = this.lineText;
    if (!line.endsWith(typed)) return null;
    return matchPrompt(this.c.pattern, line.slice(0, line.length - typed.length));
  }

  /** Whether the current line is the continuation prompt with `typed` echoed after it. */
  private typedAfterContinuation(turn: OpenTurn, typed: string): boolean {
    const more = this.c.continuation;
    if (!more || this.needsScreen || turn.echoPhase) return false;
    if (!this.lineIsCandidate(this.lineStartAbs)) return false;
    const line = this.lineText;
    if (!line.endsWith(typed)) return false;
    const before = line.slice(0, line.length - typed.length);
    return matchPrompt(more, before) !== null || matchPrompt(more, `${before.trimEnd()} `) !== null;
  }

  /**
   * Where the prompt begins on its (unterminated) line, as an output offset: the line ends with
   * the previous prompt's text (prompts rarely change), or else the prompt follows readline's
   * bracketed-paste switch (`ESC[?2004h`, written just before it is drawn); a missing-newline
   * mark in front of it (zsh's PROMPT_SP `%`, fish's `⏎`) belongs to it. Without either, the
   * whole line is the prompt.
   */
  private promptStart(turn: OpenTurn, line: string, lineStart: number): number {
    const from = Math.max(lineStart, this.outAbs - PROMPT_SCAN_BYTES, turn.bufBaseAbs);
    const raw = storedRange(turn, from, this.outAbs);
    if (!raw) return lineStart;
    // ends[b]: characters of stripped text the first b raw bytes make.
    const stripper = new AnsiStripper();
    const ends = new Int32Array(raw.length + 1);
    for (let i = 0; i < raw.length; i++)
      ends[i + 1] = ends[i]! + stripper.push(raw.subarray(i, i + 1)).length;
    const total = ends[raw.length]!;
    let tail = -1;
    if (this.prevPrompt !== '' && line.endsWith(this.prevPrompt)) tail = this.prevPrompt.length;
    else {
      const at = lastIndexOfBytes(raw, BRACKETED_PASTE_ON);
      if (at >= 0 && total > ends[at]!) tail = total - ends[at]!;
    }
    if (tail < 0 || tail > line.length) {
      this.prevPrompt = withoutLeadingCr(line);
      return lineStart;
    }
    const mark = MISSING_NEWLINE_MARK.exec(line.slice(0, line.length - tail));
    if (mark) tail = line.length - mark.index;
    this.prevPrompt = withoutLeadingCr(line.slice(line.length - tail));
    const target = total - tail;
    if (target <= 0) return lineStart;
    let b = 0;
    while (ends[b]! < target) b++;
    // A colour reset right after the text ends that text's colour: it goes with it.
    for (const reset of SGR_RESETS) if (startsWithBytes(raw, b, reset)) b += reset.length;
    return from + b;
  }

  private lineText_(content: Uint8Array, turn: OpenTurn): string {
    const typed = turn.typed;
    const lines = new TextRenderer();
    lines.write(withoutInterruptEcho(content, turn.interruptAbs - turn.contentStartAbs));
    const all = lines.lineList();
    const first = all.findIndex((l) => l.trim() !== '');
    const start = this.afterContinuationEchoes(
      all,
      first < 0 ? 0 : echoEnd(all, all.length, typed, first),
      typed,
    );
    // What follows the input box's top border (aider's rule, then the files in the chat) is
    // part of the prompt area, not of the answer.
    let end = all.length;
    for (let i = all.length - 1; i >= Math.max(start, all.length - DEFAULT_BOTTOM_LINES); i--) {
      if (firstMatch(this.c.inputTop, all[i]!) >= 0) {
        end = i;
        break;
      }
    }
    const kept = all.slice(start, end).filter((l) => firstMatch(this.c.chrome, l) < 0);
    return trimBlankEdges(kept).join('\n');
  }

  /**
   * Lines a REPL echoed at its continuation prompt (`... ))`) for lines typed into this turn are
   * input, not answer. continueTurn restarts the content after them when the detector saw the
   * prompt before the next line was typed; when that line was typed ahead (before the prompt's
   * output arrived, as under load) its echo is still at the top of the content.
   */
  private afterContinuationEchoes(all: string[], start: number, typed: string): number {
    const more = this.c.continuation;
    if (!more || !typed.includes('\n')) return start;
    const typedLines = new Set(
      typed
        .split(/\r\n?|\n/u)
        .map(compact)
        .filter((l) => l !== ''),
    );
    const isEcho = (line: string): boolean => {
      for (let k = 1; k < line.length; k++) {
        if (matchPrompt(more, line.slice(0, k)) === null) continue;
        const rest = compact(line.slice(k));
        if (rest === '' || typedLines.has(rest)) return true;
      }
      return false;
    };
    let i = start;
    while (i < all.length && (all[i]!.trim() === '' || isEcho(all[i]!))) i++;
    return i === all.length ? start : i;
  }

  /**
   * The echo of the submitted input: the line editor redraws the input line after Enter (bash
   * and zsh repaint a bracketed paste with backspaces or cursor moves, fish and node move the
   * cursor over it) and ends it with a line feed. The output is rendered on top of the line as
   * it was before Enter; at each line feed, once the rendered lines hold the whole typed text,
   * the echo is over and the content starts after that line feed. A first line that shows no
   * trace of the input means the program does not echo: everything is content.
   */
  private followEcho(
    turn: OpenTurn,
    chunk: Uint8Array,
    base: number,
    newlines: readonly number[],
  ): void {
    const echo = turn.echo!;
    let from = 0;
    for (const nl of newlines) {
      echo.write(chunk.subarray(from, nl));
      from = nl;
      // Enter's line feed: the line editor has drawn the line it runs (a recalled command).
      if (turn.edited && turn.echoNewlines === 0) turn.shownInput = this.inputOnLine(echo);
      const verdict = this.echoVerdict(turn, echo);
      if (verdict === 'more') {
        // Past the first line, what follows may be output: a give-up keeps it as content.
        if (turn.echoNewlines === 1) turn.echoLastEnd = base + nl + 1;
        continue;
      }
      this.endEcho(turn, verdict === 'done' ? base + nl + 1 : turn.echoLastEnd);
      return;
    }
    echo.write(chunk.subarray(from));
    if (this.outAbs - turn.startAbs > MAX_ECHO_PHASE_BYTES) this.endEcho(turn, turn.echoLastEnd);
  }

  /** At a line feed of the echo: the echo is complete, may go on, or was not an echo. */
  private echoVerdict(turn: OpenTurn, echo: TextRenderer): 'done' | 'more' | 'none' {
    turn.echoNewlines++;
    let shown: string | null = null;
    // A REPL echoes each line of the input after its own prompt (`... ` for an empty one).
    const allLines = this.c.continuation === null || turn.echoNewlines >= turn.echoLines;
    const tailRows = this.cols ? Math.ceil(ECHO_TAIL_CHARS / this.cols) + 1 : 1;
    if (allLines && compact(echo.lastRows(tailRows)).includes(turn.echoTail)) {
      shown = compact(echo.linesToCursor().join(''));
      if (holdsInOrder(shown, turn.echoWantLines)) return 'done';
    }
    // Rows, not line feeds: line editors move the cursor down a wrapped line with line feeds.
    if (echo.maxRow > turn.echoRows + MAX_ECHO_EXTRA_LINES) return 'none';
    if (turn.echoNewlines === 1) {
      shown ??= compact(echo.linesToCursor().join(''));
      // The first input line, or the start of a long one the editor wrapped.
      if (!shown.includes(turn.echoFirst) && !endsWithStartOf(shown, turn.echoWant)) return 'none';
    }
    return 'more';
  }

  private endEcho(turn: OpenTurn, contentStart: number): void {
    turn.echoPhase = false;
    turn.echo = null;
    turn.contentStartAbs = contentStart;
    const kept = concat(turn.chunks).subarray(Math.max(0, contentStart - turn.bufBaseAbs));
    turn.chunks = kept.length > 0 ? [kept.slice(0, this.maxTurnBytes)] : [];
    turn.bufBaseAbs = contentStart;
    turn.bufCap = this.maxTurnBytes;
  }

  /** Keeps raw output while no turn is open (bounded): the echo after Enter redraws it. */
  private keepIdle(chunk: Uint8Array, base: number): void {
    const part =
      chunk.length > MAX_IDLE_RAW_BYTES ? chunk.slice(-MAX_IDLE_RAW_BYTES) : chunk.slice();
    if (this.idleParts.length === 0) this.idleBaseAbs = base + chunk.length - part.length;
    this.idleParts.push(part);
    this.idleBytes += part.length;
    while (this.idleBytes - this.idleParts[0]!.length >= MAX_IDLE_RAW_BYTES) {
      const dropped = this.idleParts.shift()!;
      this.idleBytes -= dropped.length;
      this.idleBaseAbs += dropped.length;
    }
  }

  /** The prompt's line starts at `lineStart`: idle output before it is no longer needed. */
  private trimIdle(lineStart: number): void {
    while (this.idleParts.length > 0 && this.idleBaseAbs + this.idleParts[0]!.length <= lineStart) {
      const dropped = this.idleParts.shift()!;
      this.idleBytes -= dropped.length;
      this.idleBaseAbs += dropped.length;
    }
    const first = this.idleParts[0];
    if (first && this.idleBaseAbs < lineStart) {
      const cut = lineStart - this.idleBaseAbs;
      this.idleParts[0] = first.subarray(cut);
      this.idleBytes -= cut;
      this.idleBaseAbs = lineStart;
    }
  }

  /** A turn ends at the prompt on the line at `lineStart`: that line starts the idle output. */
  private seedIdle(turn: OpenTurn, lineStart: number): void {
    const from = Math.max(lineStart, this.outAbs - MAX_IDLE_RAW_BYTES);
    const raw = storedRange(turn, from, this.outAbs);
    this.idleParts = raw && raw.length > 0 ? [raw.slice()] : [];
    this.idleBytes = raw?.length ?? 0;
    this.idleBaseAbs = raw ? from : this.outAbs;
  }

  // ---- screen presets -----------------------------------------------------------------------

  /**
   * The agent reported its state (an OSC payload matching one of the preset's signals): kept
   * as the latest report. A busy (or blocked) report with a submit not yet taken takes it.
   */
  private onSignal(payload: string): void {
    const c = this.c;
    const signal =
      firstMatch(c.blockedSignal, payload) >= 0
        ? 'blocked'
        : firstMatch(c.busySignal, payload) >= 0
          ? 'busy'
          : firstMatch(c.idleSignal, payload) >= 0
            ? 'idle'
            : null;
    if (signal === null) return;
    this.signal = signal;
    const t = this.turn;
    if (t && signal !== 'idle') {
      t.worked = true;
      if (!t.accepted) {
        t.accepted = true;
        this.takenCount = t.submitSeq;
      }
    }
  }

  /**
   * Screen presets: whether the input box of the latest screen shows `text` (typed or pasted,
   * not submitted yet): the agent read it. Null for line presets.
   */
  inputShows(text: string): boolean | null {
    if (!this.needsScreen) return null;
    const cls = this.lastClass;
    return (
      cls !== null &&
      cls.state === 'idle' &&
      inputHolds(this.lastViewport[cls.inputIndex] ?? '', text)
    );
  }

  /** The latest screen shows the echo of the turn's input above the input box. */
  private echoShown(turn: OpenTurn): boolean {
    const end = answerEnd(this.lastLines, this.c);
    return echoEnd(this.lastLines, end, turn.typed, undefined, turn.viewportTopAtSubmit) > 0;
  }

  /** The input line of the latest screen still shows the submitted text. */
  private holdsSubmitted(turn: OpenTurn): boolean {
    const cls = this.lastClass;
    return (
      cls !== null &&
      cls.state === 'idle' &&
      inputHolds(this.lastViewport[cls.inputIndex] ?? '', turn.typed)
    );
  }

  /**
   * Whether the agent took the open turn's submit. It works or asks (a busy or question screen
   * after the submit): taken. Its input line no longer holds the text — once the text was seen
   * there, or its echo shows above the box (an agent quick enough to take text and Enter in one
   * redraw) — on a screen that stayed so for the settle window: taken. An agent still busy
   * drawing the pasted text when Enter comes (Claude Code under load) shows it in the box first;
   * it has not submitted yet. A screen with neither an input line nor a marker, or one that
   * changes still, is a redraw caught half-way (a TUI erases its box before drawing it again,
   * and a loaded machine reads that in two pieces): it says nothing — taken for a submit, Gemini
   * CLI's Enter taken as a newline left the question in its box unanswered for good.
   */
  private checkTaken(now: number): void {
    const t = this.turn;
    const cls = this.lastClass;
    if (!t || t.accepted || !cls || !t.screenChanged) return;
    if (this.holdsSubmitted(t)) {
      t.seenHeld = true;
      return;
    }
    if (cls.state === 'idle') {
      if (!t.seenHeld && !this.echoShown(t)) return;
      if (!this.screenFresh() || now - this.lastChangeAt < this.c.settleMs) return;
    } else if (cls.state !== 'busy' && cls.state !== 'blocked') return;
    t.accepted = true;
    this.takenCount = t.submitSeq;
  }

  private screenFresh(): boolean {
    return this.screenSeq === this.outputSeq;
  }

  private waitingForIdle(): boolean {
    return !this.ready || this.turn !== null;
  }

  private evaluateScreen(now: number): DetectorEvent[] {
    this.evaluatedAt = Math.max(this.evaluatedAt, now);
    const events: DetectorEvent[] = [];
    this.checkTaken(now);
    const cls = this.lastClass;
    if (!cls || !this.waitingForIdle()) return events; // idle is latched until new input
    if (cls.state === 'blocked') {
      const answered = this.answered;
      if (
        answered &&
        now - answered.at < ANSWERED_DIALOG_MS &&
        dialogOf(this.lastViewport) === answered.dialog
      ) {
        return events; // the answered dialog, drawn once more before it closes
      }
      this.answered = null;
      this.reportMenu(readMenu(this.lastViewport), now, events);
      this.setState('blocked', now, events);
      return events;
    }
    this.answered = null;
    if (cls.state === 'busy' || this.signal === 'busy') {
      if (this.ready) this.setState('busy', now, events);
      return events;
    }
    // The agent says it asks: its dialog is being drawn (the screen will say so).
    if (this.signal === 'blocked') return events;
    if (cls.state !== 'idle' || !this.screenFresh() || now - this.lastChangeAt < this.c.settleMs)
      return events;
    if (!this.ready) {
      this.becomeReady(now, events);
      return events;
    }
    const turn = this.turn!;
    // Enter on an empty input box that nothing answered. A submitted text is given longer: an
    // agent on a loaded machine reacts late (an injection gives up on it, see dropUntaken).
    if (turn.outputBytes === 0 && turn.typed.trim() === '') {
      if (now - turn.startedAt >= NO_REACTION_MS) {
        this.turn = null;
        this.setState('idle', now, events);
      }
      return events;
    }
    if (!turn.screenChanged) return events; // the answer has not reached the screen yet
    if (!turn.accepted) return events; // the submitted text still waits in the input box
    const text = extractAnswer(this.lastLines, turn.typed, this.c.preset, {
      fallbackStart: turn.viewportTopAtSubmit,
    });
    // Taken but not answered yet: an agent that queued the message (Gemini CLI still starting,
    // Codex still loading) or has not started on it shows its input box as when idle. Without
    // having seen it work, only an answer below the echo of the message shows it is done.
    if (!turn.worked && (text.trim() === '' || !this.echoShown(turn))) return events;
    const prompt = cls.inputIndex >= 0 ? (this.lastViewport[cls.inputIndex] ?? '') : '';
    this.closeTurn(turn, this.outAbs, prompt, now, events, () => text);
    return events;
  }

  // ---- shared -------------------------------------------------------------------------------

  private becomeReady(now: number, events: DetectorEvent[]): void {
    this.ready = true;
    events.push({ type: 'ready', at: now });
    this.setState('idle', now, events);
  }

  private openTurn(typed: string, now: number, joined?: OpenTurn): void {
    const line = !this.needsScreen;
    let echo: TextRenderer | null = null;
    if (line) {
      echo = new TextRenderer(this.cols !== undefined ? { cols: this.cols } : {});
      for (const part of this.idleParts) echo.write(part);
    }
    const want = compact(typed);
    const typedLines = typed.split(/\r\n?|\n/u);
    this.turn = {
      typed,
      startedAt: joined?.startedAt ?? now,
      interrupted: joined?.interrupted ?? false,
      startAbs: this.outAbs,
      contentStartAbs: this.outAbs,
      echoPhase: line,
      echo,
      echoWantLines: typedLines.map(compact).filter((l) => l !== ''),
      echoWant: want,
      echoFirst: compact(typedLines[0] ?? ''),
      echoTail: compact(typedLines.findLast((l) => l.trim() !== '') ?? '').slice(-ECHO_TAIL_CHARS),
      echoLines: typedLines.length,
      echoNewlines: 0,
      echoLastEnd: this.outAbs,
      chunks: [],
      bufBaseAbs: this.outAbs,
      bufCap: line ? MAX_ECHO_PHASE_BYTES + this.maxTurnBytes : this.maxTurnBytes,
      outputBytes: 0,
      screenChanged: false,
      submitSeq: line ? 0 : ++this.submitCount,
      accepted: false,
      // The text may be in the box already (drawn before Enter), which counts as seen there.
      worked: false,
      seenHeld:
        !line &&
        this.lastClass?.state === 'idle' &&
        inputHolds(this.lastViewport[this.lastClass.inputIndex] ?? '', typed),
      viewportTopAtSubmit: this.lastViewportTop,
      echoRows: (echo?.cursorRow ?? 0) + echoRows(typedLines, this.cols, echo?.currentLine() ?? ''),
      moreAt: null,
      interruptAbs: joined?.interruptAbs ?? -1,
      usedAlt: false,
      edited: false,
      shownInput: null,
    };
  }

  /**
   * What follows the prompt on the echo's line (its wrapped rows joined; output left without a
   * final newline may come before the prompt), or null when the line does not show the last
   * prompt seen (the input stays what was typed).
   */
  private inputOnLine(echo: TextRenderer): string | null {
    // What the prompt draws last: zsh and fish draw a missing-newline mark and a CR first, fish
    // a CR after it (then moves the cursor back to its end).
    const drawn = this.prevPrompt.replace(/\r+$/u, '');
    const prompt = drawn.slice(drawn.lastIndexOf('\r') + 1);
    const line = echo.linesToCursor().join('');
    const at = prompt.trim() === '' ? -1 : line.indexOf(prompt.trimEnd());
    return at < 0 ? null : line.slice(at + prompt.length).trimEnd();
  }

  /**
   * Whether `text` shows nothing but blank lines and continuation prompts: the REPL ran nothing
   * yet. Earlier Enters at the continuation prompt (`ask`'s closing Enter, or more lines typed
   * before the detector saw the prompt) leave such lines behind.
   */
  private onlyContinuationPrompts(text: string): boolean {
    const more = this.c.continuation;
    for (const raw of text.split('\n')) {
      const line = raw.replace(/\r+$/u, '');
      if (line.trim() === '') continue;
      if (
        !more ||
        (matchPrompt(more, line) === null && matchPrompt(more, `${line.trimEnd()} `) === null)
      )
        return false;
    }
    return true;
  }

  /**
   * Input at the continuation prompt: the turn goes on. When nothing but the prompt was shown
   * since the echo (the usual case: a REPL runs nothing before the block is complete), the
   * content restarts after the echo of this line, as at a new prompt.
   */
  private continueTurn(turn: OpenTurn, text: string): void {
    const at = turn.moreAt!;
    turn.moreAt = null;
    turn.typed = `${turn.typed}\n${text}`;
    const before = storedRange(turn, turn.contentStartAbs, at);
    if (before === null || !this.onlyContinuationPrompts(stripAnsi(before))) return;
    const promptLine = storedRange(turn, at, this.outAbs) ?? new Uint8Array(0);
    const echo = new TextRenderer(this.cols !== undefined ? { cols: this.cols } : {});
    echo.write(promptLine);
    const lines = text.split(/\r\n?|\n/u);
    Object.assign(turn, {
      startAbs: this.outAbs,
      contentStartAbs: this.outAbs,
      echoPhase: true,
      echo,
      echoWantLines: lines.map(compact).filter((l) => l !== ''),
      echoWant: compact(text),
      echoFirst: compact(lines[0] ?? ''),
      echoTail: compact(lines.findLast((l) => l.trim() !== '') ?? '').slice(-ECHO_TAIL_CHARS),
      echoLines: lines.length,
      echoNewlines: 0,
      echoLastEnd: this.outAbs,
      chunks: [],
      bufBaseAbs: this.outAbs,
      bufCap: MAX_ECHO_PHASE_BYTES + this.maxTurnBytes,
      outputBytes: 0,
      echoRows: echoRows(lines, this.cols, echo.currentLine()),
    } satisfies Partial<OpenTurn>);
  }

  private closeTurn(
    turn: OpenTurn,
    contentEnd: number,
    prompt: string,
    now: number,
    events: DetectorEvent[],
    textOf: (content: Uint8Array) => string,
  ): void {
    this.turn = null;
    const length = Math.max(0, contentEnd - turn.contentStartAbs);
    const all = concat(turn.chunks);
    const content = all.slice(0, Math.min(length, this.maxTurnBytes, all.length));
    const truncated = length > this.maxTurnBytes;
    const text = textOf(content);
    // No empty turns: a prompt after nothing but the echo (or blank redraws) is not an answer,
    // nor a full-screen program that left nothing on the main screen (less, vim).
    const visible = this.needsScreen
      ? text.trim() !== ''
      : stripAnsi(content).trim() !== '' && !(turn.usedAlt && text.trim() === '');
    if (visible) {
      events.push({
        type: 'turn',
        content,
        text,
        prompt,
        input: turn.shownInput ?? turn.typed,
        interrupted: turn.interrupted,
        truncated,
        startedAt: turn.startedAt,
        endedAt: now,
      });
    }
    this.setState('idle', now, events);
  }

  private store(turn: OpenTurn, bytes: Uint8Array, atAbs: number): void {
    const from = Math.max(atAbs, turn.bufBaseAbs);
    const to = Math.min(atAbs + bytes.length, turn.bufBaseAbs + turn.bufCap);
    if (to > from) turn.chunks.push(bytes.slice(from - atAbs, to - atAbs));
  }

  /** A turn is open: input was submitted and its prompt has not been seen since. */
  get turnOpen(): boolean {
    return this.turn !== null;
  }

  private setState(state: SessionState, now: number, events: DetectorEvent[]): void {
    if (this._state === state) return;
    this._state = state;
    if (state !== 'blocked') this.menuKey = null;
    events.push({ type: 'state', state, at: now });
  }

  /** Reports the menu of a blocked screen when it differs from the one reported last. */
  private reportMenu(menu: Menu | null, now: number, events: DetectorEvent[]): void {
    const key = JSON.stringify(menu);
    if (key === this.menuKey) return;
    this.menuKey = key;
    events.push({ type: 'menu', menu, at: now });
  }

  /**
   * Line presets: the open turn's last output rendered as lines (a question's line and the
   * output right above it, which says what it is about).
   */
  private renderedTail(turn: OpenTurn): string[] {
    const from = Math.max(turn.contentStartAbs, turn.bufBaseAbs, this.outAbs - MENU_TAIL_BYTES);
    const raw = storedRange(turn, from, this.outAbs);
    if (!raw) return [];
    const lines = new TextRenderer(this.cols !== undefined ? { cols: this.cols } : {});
    lines.write(raw);
    return lines.lineList();
  }

  /**
   * The text of the open turn so far, as `text` would be if it completed now (the same
   * extraction: echo, input box and chrome removed); null when no turn is open. For showing an
   * answer while it grows: what is shown may still change before the turn completes (a
   * redrawn line, a status line the end removes). Null while the session is blocked (a dialog
   * on the screen is no part of the answer), and for a line preset's turn past
   * MAX_PARTIAL_BYTES, which is not rendered again for each look: its text comes with the
   * completed turn.
   */
  partialText(): string | null {
    const turn = this.turn;
    if (!turn || !this.ready || this._state === 'blocked') return null;
    if (this.needsScreen) {
      if (!turn.screenChanged || turn.outputBytes === 0) return '';
      return extractAnswer(this.lastLines, turn.typed, this.c.preset, {
        fallbackStart: turn.viewportTopAtSubmit,
      });
    }
    if (turn.echoPhase) return '';
    const length = this.outAbs - turn.contentStartAbs;
    if (length > MAX_PARTIAL_BYTES) return null;
    const content = storedRange(turn, turn.contentStartAbs, this.outAbs);
    return content ? this.lineText_(content, turn) : null;
  }
}

/** The prompt text if the pattern matches the line, or the part after its last carriage return. */
function matchPrompt(pattern: LineRegex, line: string): string | null {
  // Trailing CRs dropped by hand: a regex replace here ran once per output line.
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 0x0d) end--;
  const full = end === line.length ? line : line.slice(0, end);
  if (pattern.test(full)) return full.slice(full.lastIndexOf('\r') + 1);
  const cr = full.lastIndexOf('\r');
  if (cr >= 0) {
    const tail = full.slice(cr + 1);
    if (pattern.test(tail)) return tail;
  }
  return null;
}

/** Readline (bash, Python) switches bracketed paste on just before it draws the prompt. */
const BRACKETED_PASTE_ON = new TextEncoder().encode('\x1b[?2004h');
/** zsh's PROMPT_SP and fish mark output left without a final newline: a mark (`%`/`#`, `⏎`),
 * spaces to the end of the row, CR, a blank (or the mark again), CR — then the prompt. */
const MISSING_NEWLINE_MARK = /[%#⏎]? {8,}\r[%#⏎]? \r*$/u;
const SGR_RESETS = [new TextEncoder().encode('\x1b[0m'), new TextEncoder().encode('\x1b[m')];
/** Characters of the typed text's end looked for on the echo's line before the whole is compared. */
const ECHO_TAIL_CHARS = 16;
/** Longest start of the typed text compared with the end of a wrapped first echo line. */
const MAX_WRAPPED_ECHO_COMPARE = 1024;

/**
 * How many rows below the prompt line the echo of these lines can reach: one per line, plus
 * the rows a line wraps onto at this width (the first after the prompt's text).
 */
function echoRows(lines: readonly string[], cols: number | undefined, promptLine: string): number {
  let rows = lines.length;
  if (cols === undefined) return rows;
  lines.forEach((l, i) => {
    rows += Math.floor(((i === 0 ? promptLine.length : 0) + l.length) / cols);
  });
  return rows;
}

/** The terminal's `^C` echo of an interrupt is input, not answer: the content without it
 * (the first one at or after `from`, within INTERRUPT_ECHO_SCAN_BYTES). */
function withoutInterruptEcho(content: Uint8Array, from: number): Uint8Array {
  if (from < 0) return content;
  const end = Math.min(content.length - 1, from + INTERRUPT_ECHO_SCAN_BYTES);
  for (let i = Math.max(0, from); i < end; i++) {
    if (content[i] === 0x5e && content[i + 1] === 0x43) {
      const out = new Uint8Array(content.length - 2);
      out.set(content.subarray(0, i));
      out.set(content.subarray(i + 2), i);
      return out;
    }
  }
  return content;
}

/**
 * How long after Enter answered a dialog the same dialog on the screen is taken for the agent's
 * last redraw of it rather than the question asked again: TUIs close a dialog within a frame or
 * two; a second is room for a loaded machine. Still there after that, the Enter did not answer it.
 */
const ANSWERED_DIALOG_MS = 1000;

/** A dialog's question and choices, whatever its cursor's place: the same question asked. */
function dialogOf(viewport: readonly string[]): string {
  const menu = readMenu(viewport);
  return JSON.stringify(menu && [menu.question, menu.options.map((o) => o.label)]);
}

/** Raw output at the end of a line-preset turn rendered to read a question: the question's line
 * and a few lines of output above it, with room for their escape sequences. */
const MENU_TAIL_BYTES = 8 * 1024;

/** Largest line-preset turn whose partial text is rendered for a look (each look renders it
 * whole, in the detector's thread): past it the text waits for the completed turn. */
const MAX_PARTIAL_BYTES = 256 * 1024;

/** Output bytes after Ctrl-C searched for its `^C` echo: the kernel echoes it at once, after
 * at most what the program had already written (a terminal line or two). */
const INTERRUPT_ECHO_SCAN_BYTES = 4096;

function compact(s: string): string {
  return s.replace(/\s+/gu, '');
}

function withoutLeadingCr(s: string): string {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) === 0x0d) i++;
  return s.slice(i);
}

/** Whether `shown` holds every line, in order (a continuation prompt may come between two). */
function holdsInOrder(shown: string, lines: readonly string[]): boolean {
  let at = 0;
  for (const line of lines) {
    const i = shown.indexOf(line, at);
    if (i < 0) return false;
    at = i + line.length;
  }
  return true;
}

/** Whether `shown` ends with a start of `want` long enough not to be chance. */
function endsWithStartOf(shown: string, want: string): boolean {
  const least = Math.min(want.length, ECHO_MIN_PREFIX_CHARS);
  for (let k = Math.min(want.length, shown.length, MAX_WRAPPED_ECHO_COMPARE); k >= least; k--) {
    if (k > 0 && shown.endsWith(want.slice(0, k))) return true;
  }
  return false;
}

/** The stored bytes of a turn between two output offsets, or null when not all are stored. */
function storedRange(turn: OpenTurn, from: number, to: number): Uint8Array | null {
  if (from < turn.bufBaseAbs) return null;
  const parts: Uint8Array[] = [];
  let end = turn.bufBaseAbs;
  for (const c of turn.chunks) end += c.length;
  if (end < to) return null;
  for (let i = turn.chunks.length - 1; i >= 0 && end > from; i--) {
    const c = turn.chunks[i]!;
    const start = end - c.length;
    parts.unshift(c.subarray(Math.max(0, from - start), Math.min(c.length, to - start)));
    end = start;
  }
  return concat(parts);
}

function lastIndexOfBytes(hay: Uint8Array, needle: Uint8Array): number {
  for (let i = hay.length - needle.length; i >= 0; i--)
    if (startsWithBytes(hay, i, needle)) return i;
  return -1;
}

function startsWithBytes(hay: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > hay.length) return false;
  for (let j = 0; j < needle.length; j++) if (hay[at + j] !== needle[j]) return false;
  return true;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 0) return new Uint8Array(0);
  if (chunks.length === 1) return chunks[0]!;
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}
