// Line presets: the echo of a submitted input. The line editor redraws the input line after
// Enter (bash and zsh repaint a bracketed paste with backspaces or cursor moves, fish and node
// move the cursor over it) and ends it with a line feed. The output is rendered on top of the
// line as it was before Enter; at each line feed, once the rendered lines hold the whole typed
// text, the echo is over and the content starts after that line feed. A first line that shows
// no trace of the input means the program does not echo: everything is content.
import { ECHO_MIN_PREFIX_CHARS, MAX_ECHO_EXTRA_LINES, MAX_ECHO_PHASE_BYTES } from './constants.js';
import { stripAnsi } from './ansi-stripper.js';
import { compact } from './screen-lines.js';
import type { TextRenderer } from './text-renderer.js';

/** Characters of the typed text's end looked for on the echo's line before the whole is compared. */
const ECHO_TAIL_CHARS = 16;
/** Longest start of the typed text compared with the end of a wrapped first echo line. */
const MAX_WRAPPED_ECHO_COMPARE = 1024;

export class LineEcho {
  /** The typed lines without whitespace (echo lines are compared without it: wraps, indents),
   * and all of them joined. */
  private readonly wantLines: string[];
  private readonly want: string;
  /** Its first line, and its last characters (a cheap test before the whole is compared). */
  private readonly first: string;
  private readonly tail: string;
  /** Lines of the typed text, and line feeds seen in the echo so far. */
  private readonly lines: number;
  private newlines = 0;
  /** Offset just after the last output byte known to be echo. */
  lastEnd: number;
  /** Rows below the prompt line the echo may reach (its lines, wrapped at the width). */
  private readonly rows: number;
  /** With `startCut`: the last characters written since Enter, without whitespace and escapes. */
  private written = '';
  private readonly decoder = new TextDecoder();

  /**
   * The echo of `typed` (submitted at output offset `startAbs`) drawn over `screen`, the input
   * line as it was before Enter; `rowsAbove` rows of it come before the prompt's line.
   */
  constructor(
    typed: string,
    readonly screen: TextRenderer,
    private readonly startAbs: number,
    rowsAbove: number,
    cols: number | undefined,
    /** The program echoes each line of the input after its own continuation prompt. */
    private readonly perLinePrompt: boolean,
    /** `startCut`: `screen` lacks the start of the input line (a paste longer than the output
     * kept between turns): only the end of its echo can be seen. */
    private readonly opts: { startCut?: boolean } = {},
  ) {
    const typedLines = typed.split(/\r\n?|\n/u);
    this.wantLines = typedLines.map(compact).filter((l) => l !== '');
    this.want = compact(typed);
    this.first = compact(typedLines[0] ?? '');
    this.tail = compact(typedLines.findLast((l) => l.trim() !== '') ?? '').slice(-ECHO_TAIL_CHARS);
    this.lines = typedLines.length;
    this.lastEnd = startAbs;
    this.rows = rowsAbove + echoRows(typedLines, cols, screen.currentLine());
  }

  /** Every line feed of the typed lines was seen (a prompt after the last ends the echo). */
  get linesSeen(): boolean {
    return this.newlines >= this.lines - 1;
  }

  /**
   * Whether the screen shows the end of what was typed (its last line's last characters) on or
   * before the cursor's row: the echo reached the input's last line.
   */
  endShown(): boolean {
    return compact(this.screen.linesToCursor().join('')).includes(this.tail);
  }

  /**
   * Follows a chunk of output at offset `base` (`newlines`: its line feeds' byte indices);
   * `atEnter` sees the screen at Enter's line feed. Returns where the content starts once the
   * echo is over, or null while it goes on.
   */
  follow(
    chunk: Uint8Array,
    base: number,
    newlines: readonly number[],
    cols: number | undefined,
    atEnter?: (screen: TextRenderer) => void,
  ): number | null {
    let from = 0;
    for (const nl of newlines) {
      this.write(chunk.subarray(from, nl));
      from = nl;
      // Enter's line feed: the line editor has drawn the line it runs (a recalled command).
      if (this.newlines === 0) atEnter?.(this.screen);
      const verdict = this.verdict(cols);
      if (verdict === 'more') {
        // Past the first line, what follows may be output: a give-up keeps it as content.
        if (this.newlines === 1) this.lastEnd = base + nl + 1;
        continue;
      }
      return verdict === 'done' ? base + nl + 1 : this.lastEnd;
    }
    this.write(chunk.subarray(from));
    return base + chunk.length - this.startAbs > MAX_ECHO_PHASE_BYTES ? this.lastEnd : null;
  }

  private write(bytes: Uint8Array): void {
    this.screen.write(bytes);
    if (!this.opts.startCut) return;
    const text = compact(stripAnsi(this.decoder.decode(bytes, { stream: true })));
    this.written = (this.written + text).slice(-ECHO_TAIL_CHARS);
  }

  /** At a line feed of the echo: the echo is complete, may go on, or was not an echo. */
  private verdict(cols: number | undefined): 'done' | 'more' | 'none' {
    const echo = this.screen;
    this.newlines++;
    let shown: string | null = null;
    // A REPL echoes each line of the input after its own prompt (`... ` for an empty one).
    const allLines = !this.perLinePrompt || this.newlines >= this.lines;
    const tailRows = cols ? Math.ceil(ECHO_TAIL_CHARS / cols) + 1 : 1;
    if (allLines && compact(echo.lastRows(tailRows)).includes(this.tail)) {
      shown = compact(echo.linesToCursor().join(''));
      if (holdsInOrder(shown, this.wantLines)) return 'done';
    }
    // Only the end of a long input's echo can be on this screen: the line feed that follows the
    // input's last characters ends it. Told from what was written, not from the rows: bash
    // draws such a line's rows again at Enter, each after a bare CR, over one another.
    if (allLines && this.opts.startCut && this.written.endsWith(this.tail)) return 'done';
    // Rows, not line feeds: line editors move the cursor down a wrapped line with line feeds.
    if (echo.maxRow > this.rows + MAX_ECHO_EXTRA_LINES) return 'none';
    if (this.newlines === 1) {
      shown ??= compact(echo.linesToCursor().join(''));
      // The first input line, or the start of a long one the editor wrapped.
      if (!shown.includes(this.first) && !endsWithStartOf(shown, this.want)) return 'none';
    }
    return 'more';
  }
}

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
