import { AnsiStripper, stripAnsi } from './ansi-stripper.js';
import { classifyLines, type Classification } from './classify.js';
import {
  DEFAULT_BOTTOM_LINES,
  DEFAULT_MAX_TURN_BYTES,
  MAX_ECHO_PHASE_BYTES,
  MAX_LINE_CHARS,
  MAX_PRE_ECHO_COMPARE,
  NO_REACTION_MS,
  PROMPT_QUIET_MS,
} from './constants.js';
import { echoEnd, extractAnswer } from './extract.js';
import { InputTracker } from './input-tracker.js';
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
    };

export interface TurnDetectorOptions {
  preset: Preset;
  /** Longest content kept per turn (default 4 MiB); longer content is cut and flagged truncated. */
  maxTurnBytes?: number;
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
  /** Line presets: still matching the echo of the typed text. */
  echoPhase: boolean;
  echoExpect: string;
  echoPos: number;
  /** Offset just after the last output byte that was part of the echo. */
  echoLastEnd: number;
  /** Stored raw bytes, starting at bufBaseAbs, at most bufCap of them. */
  chunks: Uint8Array[];
  bufBaseAbs: number;
  bufCap: number;
  outputBytes: number;
  /** Screen presets: the viewport changed after the submit. */
  screenChanged: boolean;
  /** Screen presets: the viewport's first buffer line at submit (the answer is below it). */
  viewportTopAtSubmit: number | undefined;
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

  // Screen presets: the latest screen and how long it has been unchanged.
  private screenKey: string | null = null;
  private screenSeq = -1;
  private lastChangeAt = Number.NEGATIVE_INFINITY;
  private lastLines: string[] = [];
  private lastViewport: string[] = [];
  private lastViewportTop: number | undefined;
  private lastClass: (Classification & { inputIndex: number }) | null = null;

  constructor(opts: TurnDetectorOptions) {
    this.c = compilePreset(opts.preset);
    this.maxTurnBytes = Math.max(0, opts.maxTurnBytes ?? DEFAULT_MAX_TURN_BYTES);
    this.needsScreen = this.c.preset.kind === 'screen';
  }

  get state(): SessionState {
    return this._state;
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
      return events;
    }
    let pos = 0;
    while (pos < chunk.length) {
      const turn = this.turn;
      if (turn && turn.echoPhase) {
        // Byte by byte while the echo is matched, to know exactly where content starts.
        const b = chunk.subarray(pos, pos + 1);
        const text = this.stripper.push(b);
        this.store(turn, b, this.outAbs);
        this.outAbs += 1;
        pos += 1;
        turn.outputBytes += 1;
        for (const ch of text) if (turn.echoPhase) this.echoChar(turn, ch);
        if (turn.echoPhase && this.outAbs - turn.startAbs > MAX_ECHO_PHASE_BYTES) {
          this.endEcho(turn, turn.echoLastEnd);
        }
        this.lineTextIn(text, now, events, this.stripper.lastNewlines, this.outAbs - 1);
        continue;
      }
      // The rest of the chunk in one go; the stripper says where its line feeds were.
      const rest = pos === 0 ? chunk : chunk.subarray(pos);
      const text = this.stripper.push(rest);
      const base = this.outAbs;
      if (turn) {
        this.store(turn, rest, base);
        turn.outputBytes += rest.length;
      }
      this.outAbs += rest.length;
      pos = chunk.length;
      this.lineTextIn(text, now, events, this.stripper.lastNewlines, base);
    }
    return events;
  }

  onInput(data: Uint8Array, now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    for (const ev of this.input.feed(data)) {
      if (ev.type === 'interrupt') {
        if (this.turn) this.turn.interrupted = true;
        continue;
      }
      if (ev.type === 'escape') {
        // TUIs (Claude Code, Codex, Gemini, Copilot) stop working on Esc; a dialog's Esc is an answer.
        if (this.needsScreen && this.turn && this._state === 'busy') this.turn.interrupted = true;
        continue;
      }
      // Input typed before the first prompt is not an answer to it: no turn starts.
      if (!this.ready) continue;
      if (this.turn && this.turn.outputBytes === 0) {
        // Nothing answered the previous submit yet (Enter on an empty line): this input replaces it.
        this.openTurn(ev.text, now);
        continue;
      }
      if (this.turn) {
        // Answering a question mid-turn (aider's "(Y)es/(N)o", a dialog): same turn.
        if (this._state === 'blocked') this.setState('busy', now, events);
        continue;
      }
      this.openTurn(ev.text, now);
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
    return this.evaluateScreen(now);
  }

  tick(now: number): DetectorEvent[] {
    if (this.needsScreen) return this.evaluateScreen(now);
    const events: DetectorEvent[] = [];
    if (this.lineDirty && now - this.lastOutputAt >= PROMPT_QUIET_MS) {
      this.lineDirty = false;
      this.checkLine(this.lineText, this.lineStartAbs, now, events, false);
    }
    return events;
  }

  nextDeadline(): number | null {
    if (this.needsScreen) {
      if (!this.waitingForIdle() || this.lastClass?.state !== 'idle' || !this.screenFresh())
        return null;
      const t = this.turn;
      if (t && t.outputBytes === 0) return t.startedAt + NO_REACTION_MS;
      return this.lastChangeAt + this.c.settleMs;
    }
    return this.lineDirty && this.lineIsCandidate(this.lineStartAbs)
      ? this.lastOutputAt + PROMPT_QUIET_MS
      : null;
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
    if (prompt === null) {
      // A question waits on the last, unterminated line; once answered its line ends.
      if (
        !terminated &&
        this.turn &&
        this._state === 'busy' &&
        firstMatch(this.c.blocked, line) >= 0
      ) {
        this.setState('blocked', now, events);
      }
      return;
    }
    this.lineMatchedAt = lineStart;
    if (!this.ready) {
      this.becomeReady(now, events);
      return;
    }
    const turn = this.turn!;
    const contentEnd = Math.max(lineStart, turn.contentStartAbs);
    this.closeTurn(turn, contentEnd, prompt, now, events, (content) =>
      this.lineText_(content, turn.typed),
    );
  }

  private lineText_(content: Uint8Array, typed: string): string {
    const lines = new TextRenderer();
    lines.write(content);
    const all = lines.lineList();
    const first = all.findIndex((l) => l.trim() !== '');
    const start = first < 0 ? 0 : echoEnd(all, all.length, typed, first);
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

  private echoChar(turn: OpenTurn, ch: string): void {
    const endAbs = this.outAbs;
    if (ch === '\r') {
      turn.echoLastEnd = endAbs;
      return;
    }
    if (turn.echoExpect.startsWith(ch, turn.echoPos)) {
      turn.echoPos += ch.length;
      turn.echoLastEnd = endAbs;
      return;
    }
    if (ch === '\n') {
      // The end of the input line closes the echo (typed text may have been echoed before Enter).
      this.endEcho(turn, endAbs);
      return;
    }
    this.endEcho(turn, turn.echoLastEnd);
  }

  private endEcho(turn: OpenTurn, contentStart: number): void {
    turn.echoPhase = false;
    turn.contentStartAbs = contentStart;
    const kept = concat(turn.chunks).subarray(Math.max(0, contentStart - turn.bufBaseAbs));
    turn.chunks = kept.length > 0 ? [kept.slice(0, this.maxTurnBytes)] : [];
    turn.bufBaseAbs = contentStart;
    turn.bufCap = this.maxTurnBytes;
  }

  /** How much of the typed text the prompt line already shows (echoed as it was typed). */
  private preEchoed(typed: string): number {
    if (typed === '' || typed.includes('\n')) return 0;
    const visible = TextRenderer.render(this.lineText).split('\n').pop() ?? '';
    for (let k = Math.min(typed.length, MAX_PRE_ECHO_COMPARE); k > 0; k--) {
      if (visible.endsWith(typed.slice(0, k))) return k;
    }
    return 0;
  }

  // ---- screen presets -----------------------------------------------------------------------

  private screenFresh(): boolean {
    return this.screenSeq === this.outputSeq;
  }

  private waitingForIdle(): boolean {
    return !this.ready || this.turn !== null;
  }

  private evaluateScreen(now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    const cls = this.lastClass;
    if (!cls || !this.waitingForIdle()) return events; // idle is latched until new input
    if (cls.state === 'blocked') {
      this.setState('blocked', now, events);
      return events;
    }
    if (cls.state === 'busy') {
      if (this.ready) this.setState('busy', now, events);
      return events;
    }
    if (cls.state !== 'idle' || !this.screenFresh() || now - this.lastChangeAt < this.c.settleMs)
      return events;
    if (!this.ready) {
      this.becomeReady(now, events);
      return events;
    }
    const turn = this.turn!;
    if (turn.outputBytes === 0) {
      if (now - turn.startedAt >= NO_REACTION_MS) {
        this.turn = null;
        this.setState('idle', now, events);
      }
      return events;
    }
    if (!turn.screenChanged) return events; // the answer has not reached the screen yet
    const prompt = cls.inputIndex >= 0 ? (this.lastViewport[cls.inputIndex] ?? '') : '';
    this.closeTurn(turn, this.outAbs, prompt, now, events, () =>
      extractAnswer(this.lastLines, turn.typed, this.c.preset, {
        fallbackStart: turn.viewportTopAtSubmit,
      }),
    );
    return events;
  }

  // ---- shared -------------------------------------------------------------------------------

  private becomeReady(now: number, events: DetectorEvent[]): void {
    this.ready = true;
    events.push({ type: 'ready', at: now });
    this.setState('idle', now, events);
  }

  private openTurn(typed: string, now: number): void {
    const line = !this.needsScreen;
    const already = line ? this.preEchoed(typed) : 0;
    this.turn = {
      typed,
      startedAt: now,
      interrupted: false,
      startAbs: this.outAbs,
      contentStartAbs: this.outAbs,
      echoPhase: line,
      echoExpect: typed.slice(already),
      echoPos: 0,
      echoLastEnd: this.outAbs,
      chunks: [],
      bufBaseAbs: this.outAbs,
      bufCap: line ? MAX_ECHO_PHASE_BYTES + this.maxTurnBytes : this.maxTurnBytes,
      outputBytes: 0,
      screenChanged: false,
      viewportTopAtSubmit: this.lastViewportTop,
    };
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
    // No empty turns: a prompt after nothing but the echo (or blank redraws) is not an answer.
    const visible = this.needsScreen ? text.trim() !== '' : stripAnsi(content).trim() !== '';
    if (visible) {
      events.push({
        type: 'turn',
        content,
        text,
        prompt,
        input: turn.typed,
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

  private setState(state: SessionState, now: number, events: DetectorEvent[]): void {
    if (this._state === state) return;
    this._state = state;
    events.push({ type: 'state', state, at: now });
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

function concat(chunks: Uint8Array[]): Uint8Array {
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
