// The line watcher: a turn of a shell or REPL (a line preset) — from Enter, past the echo of the
// input, to the next prompt on an output line; continuation prompts, questions on the last line
// and full-screen programs on the alternate screen on the way.
import { stripAnsi } from './ansi-stripper.js';
import { concat } from './bytes.js';
import {
  MAX_ECHO_PHASE_BYTES,
  MAX_IDLE_RAW_BYTES,
  MAX_LINE_CHARS,
  PROMPT_QUIET_MS,
  ECHO_REST_WAIT_MS,
  PROMPT_SCAN_BYTES,
} from './constants.js';
import { IdleOutput } from './idle-output.js';
import { LineEcho } from './line-echo.js';
import { lineTurnText, onlyContinuationPrompts } from './line-turn-text.js';
import { readMenu } from './menu.js';
import { openTurnAt, storedRange, storeOutput, type OpenTurn } from './open-turn.js';
import type { ChunkScan } from './output-scan.js';
import {
  inputOnLine,
  matchPrompt,
  matchesContinuation,
  promptStart,
  withoutLeadingCr,
} from './prompt-line.js';
import { firstMatch } from './screen-lines.js';
import { TextRenderer } from './text-renderer.js';
import type { DetectorEvent } from './turn-watcher.js';
import { WatcherBase, type Submit } from './watcher-base.js';

/** A line preset's turn in progress. */
interface LineTurn extends OpenTurn {
  /** The echo of the typed text while it is read (see LineEcho), null once it is over. */
  echo: LineEcho | null;
  /** The program shows its continuation prompt; the line starts here. */
  moreAt: number | null;
  /** A full-screen program showed the alternate screen during the turn. */
  usedAlt: boolean;
}

/** Raw output at the end of a turn rendered to read a question: the question's line and a few
 * lines of output above it, with room for their escape sequences. */
const MENU_TAIL_BYTES = 8 * 1024;

/** Largest turn whose partial text is rendered for a look (each look renders it whole, in the
 * detector's thread): past it the text waits for the completed turn. */
const MAX_PARTIAL_BYTES = 256 * 1024;

export class LineWatcher extends WatcherBase<LineTurn> {
  readonly needsScreen = false;
  readonly scanNeeds = { text: true };
  /** The alternate screen is shown: nothing on it is a prompt. */
  private altOn = false;
  // The current (unterminated) line.
  private lineStartAbs = 0;
  private lineText = '';
  private lineDirty = false;
  /**
   * The output's time when a prompt shown before the rest of an input's echo began the wait for
   * it (see tick): that wait holds while no output came since.
   */
  private echoRestSince: number | null = null;
  private lineMatchedAt = -1;
  /** The stripped text of the last prompt (without leading CRs): where the next one begins. */
  private prevPrompt = '';
  private readonly idle = new IdleOutput();

  protected output(chunk: Uint8Array, now: number, events: DetectorEvent[], scan: ChunkScan): void {
    let from = 0;
    for (const seg of scan.segments) {
      if (seg.end > from)
        this.lineOutput(chunk.subarray(from, seg.end), seg.text, seg.newlines, now, events);
      from = seg.end;
      if (seg.alt === null) continue;
      this.altOn = seg.alt;
      if (seg.alt && this.turn) this.turn.usedAlt = true;
      if (!seg.alt) {
        // Keys typed into the full-screen program were its own, not the start of an input.
        this.input.clear();
        // Back on the main screen: the line under the cursor starts afresh.
        this.lineText = '';
        this.lineDirty = false;
        this.lineStartAbs = this.outAbs;
      }
    }
  }

  /** A stretch of output on one screen, with its visible text and line feeds (from the scan). */
  private lineOutput(
    chunk: Uint8Array,
    text: string,
    newlines: readonly number[],
    now: number,
    events: DetectorEvent[],
  ): void {
    const base = this.outAbs;
    const turn = this.turn;
    if (turn) {
      storeOutput(turn, chunk, base);
      turn.outputBytes += chunk.length;
    } else this.idle.keep(chunk, base);
    this.outAbs += chunk.length;
    if (turn?.echo) {
      const atEnter = turn.edited
        ? (screen: TextRenderer) => (turn.shownInput = inputOnLine(screen, this.prevPrompt))
        : undefined;
      const contentStart = turn.echo.follow(chunk, base, newlines, this.cols, atEnter);
      if (contentStart !== null) this.endEcho(turn, contentStart);
    }
    this.lineTextIn(text, now, events, newlines, base);
  }

  protected escape(): void {}

  protected submit(ev: Submit, now: number, events: DetectorEvent[]): void {
    const t = this.turn;
    if (t && t.outputBytes === 0) {
      // Nothing answered the previous submit yet: lines submitted together (a multi-line text
      // typed into a program without bracketed paste) are one input, echoed line by line.
      this.openTurn(`${t.typed}\n${ev.text}`, now, t);
      return;
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
      return;
    }
    const shownPrompt = t ? this.typedAfterPrompt(t, ev.text) : null;
    if (t && shownPrompt !== null) {
      // The prompt was drawn and typed-ahead text echoed right after it (no pause in which to
      // see it): the open turn ended at that prompt, and this submit opens the next.
      const lineStart = this.lineStartAbs;
      this.lineMatchedAt = lineStart;
      this.seedIdle(t, lineStart);
      const end = Math.max(lineStart, t.contentStartAbs);
      this.closeTurn(t, end, shownPrompt, now, events, (content) =>
        lineTurnText(content, t, this.c),
      );
      this.openTurn(ev.text, now);
      this.setState('busy', now, events);
      return;
    }
    if (this.altOn && !t) return; // keys of a full-screen program are no prompt's input
    if (t) {
      // Answering a question mid-turn (aider's "(Y)es/(N)o"): same turn.
      if (this._state === 'blocked') this.setState('busy', now, events);
      return;
    }
    this.startTurn(ev, now, events);
  }

  tick(now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    if (this.lineDirty && now - this.lastOutputAt >= PROMPT_QUIET_MS) {
      const t = this.turn;
      // An echo still unfinished when a prompt waits on a later line: it is over — once the
      // end of what was typed was shown, or nothing more came for ECHO_REST_WAIT_MS (a REPL
      // shows a prompt after a definition before it echoes the next line typed with it).
      if (t?.echo && this.lineStartAbs > t.startAbs && this.c.pattern && t.echo.linesSeen) {
        if (matchPrompt(this.c.pattern, this.lineText) !== null) {
          if (!t.echo.endShown() && now - this.lastOutputAt < ECHO_REST_WAIT_MS) {
            this.echoRestSince = this.lastOutputAt;
            return events;
          }
          this.endEcho(t, t.echo.lastEnd);
        }
      }
      this.lineDirty = false;
      this.echoRestSince = null;
      this.checkLine(this.lineText, this.lineStartAbs, now, events, false);
    }
    return events;
  }

  nextDeadline(): number | null {
    const t = this.turn;
    const echoOpen = t !== null && t.echo !== null && this.lineStartAbs > t.startAbs;
    if (!this.lineDirty || !(echoOpen || this.lineIsCandidate(this.lineStartAbs))) return null;
    // Output since the wait for an echo's rest began: the quiet wait starts again from it.
    const waitingForEcho = this.echoRestSince === this.lastOutputAt;
    return this.lastOutputAt + (waitingForEcho ? ECHO_REST_WAIT_MS : PROMPT_QUIET_MS);
  }

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
      // The line's own copy: a slice keeps the whole chunk's text alive until the next chunk,
      // and with 50 sessions printing side by side that was 50 chunks' text surviving the
      // pipeline worker's young-generation collections (with the scan's result, see OutputScan:
      // 54 MB of survivors copied per 300 MB of such output, 35 MB without both).
      if (text.length > this.lineText.length) this.lineText = ownCopy(this.lineText);
      this.lineDirty = true;
    }
  }

  /** A line can be a prompt before the first one (ready) or after the content of a turn began. */
  private lineIsCandidate(lineStart: number): boolean {
    // A full-screen program's screen holds no prompt, whatever its lines end with.
    if (this.altOn) return false;
    if (!this.ready) return lineStart !== this.lineMatchedAt;
    const t = this.turn;
    return t !== null && t.echo === null && lineStart >= t.contentStartAbs;
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
      this.idle.trim(lineStart);
      this.becomeReady(now, events);
      return;
    }
    const turn = this.turn!;
    // Output left without a final newline shares the prompt's line: it is part of the answer.
    const promptAt = terminated ? lineStart : this.promptStart(turn, line, lineStart);
    const contentEnd = Math.max(promptAt, turn.contentStartAbs);
    this.seedIdle(turn, lineStart);
    this.closeTurn(turn, contentEnd, prompt, now, events, (content) =>
      lineTurnText(content, turn, this.c),
    );
  }

  /** Where the prompt begins on its (unterminated) line, as an output offset (see promptStart). */
  private promptStart(turn: LineTurn, line: string, lineStart: number): number {
    const from = Math.max(lineStart, this.outAbs - PROMPT_SCAN_BYTES, turn.bufBaseAbs);
    const raw = storedRange(turn, from, this.outAbs);
    const { at, prompt } = promptStart(raw, from, line, lineStart, this.prevPrompt);
    this.prevPrompt = prompt;
    return at;
  }

  /** Whether the unterminated line is a prompt followed by the echo of `typed` (typed ahead). */
  private typedAfterPrompt(turn: LineTurn, typed: string): string | null {
    if (typed.trim() === '' || turn.echo || !this.c.pattern) return null;
    if (!this.lineIsCandidate(this.lineStartAbs)) return null;
    const line = this.lineText;
    if (!line.endsWith(typed)) return null;
    return matchPrompt(this.c.pattern, line.slice(0, line.length - typed.length));
  }

  /** Whether the current line is the continuation prompt with `typed` echoed after it. */
  private typedAfterContinuation(turn: LineTurn, typed: string): boolean {
    const more = this.c.continuation;
    if (!more || turn.echo) return false;
    if (!this.lineIsCandidate(this.lineStartAbs)) return false;
    const line = this.lineText;
    if (!line.endsWith(typed)) return false;
    return matchesContinuation(more, line.slice(0, line.length - typed.length));
  }

  protected openTurn(typed: string, now: number, joined?: LineTurn): void {
    const screen = this.renderer();
    for (const part of this.idle.kept) screen.write(part);
    const at = this.outAbs;
    this.turn = {
      ...openTurnAt(typed, now, at, MAX_ECHO_PHASE_BYTES + this.maxTurnBytes, joined),
      echo: new LineEcho(typed, screen, at, screen.cursorRow, this.cols, this.perLinePrompt(), {
        startCut: this.idle.cut,
      }),
      moreAt: null,
      usedAlt: false,
    };
  }

  /**
   * Input at the continuation prompt: the turn goes on. When nothing but the prompt was shown
   * since the echo (the usual case: a REPL runs nothing before the block is complete), the
   * content restarts after the echo of this line, as at a new prompt.
   */
  private continueTurn(turn: LineTurn, text: string): void {
    const at = turn.moreAt!;
    turn.moreAt = null;
    turn.typed = `${turn.typed}\n${text}`;
    const before = storedRange(turn, turn.contentStartAbs, at);
    if (before === null || !onlyContinuationPrompts(stripAnsi(before), this.c.continuation)) return;
    const promptLine = storedRange(turn, at, this.outAbs) ?? new Uint8Array(0);
    const screen = this.renderer();
    screen.write(promptLine);
    const start = this.outAbs;
    Object.assign(turn, {
      startAbs: start,
      contentStartAbs: start,
      echo: new LineEcho(text, screen, start, 0, this.cols, this.perLinePrompt()),
      chunks: [],
      bufBaseAbs: start,
      bufCap: MAX_ECHO_PHASE_BYTES + this.maxTurnBytes,
      outputBytes: 0,
    } satisfies Partial<LineTurn>);
  }

  /** The echo is over: the content starts at `contentStart`, and is kept up to maxTurnBytes. */
  private endEcho(turn: LineTurn, contentStart: number): void {
    turn.echo = null;
    turn.contentStartAbs = contentStart;
    const kept = concat(turn.chunks).subarray(Math.max(0, contentStart - turn.bufBaseAbs));
    turn.chunks = kept.length > 0 ? [kept.slice(0, this.maxTurnBytes)] : [];
    turn.bufBaseAbs = contentStart;
    turn.bufCap = this.maxTurnBytes;
  }

  /** A turn ends at the prompt on the line at `lineStart`: that line starts the idle output. */
  private seedIdle(turn: LineTurn, lineStart: number): void {
    const from = Math.max(lineStart, this.outAbs - MAX_IDLE_RAW_BYTES);
    const raw = storedRange(turn, from, this.outAbs);
    this.idle.reset(raw, from, this.outAbs, raw === null || from > lineStart);
  }

  /** The program echoes each line of an input after its own continuation prompt (a REPL). */
  private perLinePrompt(): boolean {
    return this.c.continuation !== null;
  }

  private renderer(): TextRenderer {
    return new TextRenderer(this.cols !== undefined ? { cols: this.cols } : {});
  }

  /** No empty turns: a prompt after nothing but the echo (or blank redraws) is not an answer,
   * nor a full-screen program that left nothing on the main screen (less, vim). */
  protected visible(turn: LineTurn, content: Uint8Array, text: string): boolean {
    // Text rendered from the content shows characters the stripped content has too: only a
    // turn whose text is blank is stripped again (a flood's turn of 4 MB took 17 ms more).
    if (/\S/u.test(text)) return true;
    return !turn.usedAlt && stripAnsi(content).trim() !== '';
  }

  /** The open turn's last output rendered as lines (a question's line and the output right
   * above it, which says what it is about). */
  private renderedTail(turn: LineTurn): string[] {
    const from = Math.max(turn.contentStartAbs, turn.bufBaseAbs, this.outAbs - MENU_TAIL_BYTES);
    const raw = storedRange(turn, from, this.outAbs);
    if (!raw) return [];
    const lines = this.renderer();
    lines.write(raw);
    return lines.lineList();
  }

  /** A turn past MAX_PARTIAL_BYTES is not rendered again for each look: null. */
  protected partialOf(turn: LineTurn): string | null {
    if (turn.echo) return '';
    const length = this.outAbs - turn.contentStartAbs;
    if (length > MAX_PARTIAL_BYTES) return null;
    const content = storedRange(turn, turn.contentStartAbs, this.outAbs);
    return content ? lineTurnText(content, turn, this.c) : null;
  }
}

/**
 * `s` in a string of its own: V8 makes a slice of a long string a view that keeps the whole
 * of it alive; joining a character flattens `s` into a new string, and the slice after that
 * keeps only that one.
 */
function ownCopy(s: string): string {
  return s.length === 0 ? s : ` ${s}`.slice(1);
}
