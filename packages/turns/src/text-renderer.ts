// A tiny line-oriented terminal: enough to turn raw output into what a person saw, for the
// `text` of line-preset turns. It resolves carriage returns, backspaces, erase-in-line/display
// and cursor moves within and between the lines it has seen; it knows no screen size (no
// wrapping unless given a width, no absolute rows), so absolute row positioning is ignored.
// What a full-screen program draws on the alternate screen is dropped when it leaves it: the
// reader sees the main screen again, as before. Its escape sequences are the escape parser's
// tokens (escape-parser.ts, the engine's one state machine for them).
import { ALT_SCREEN_MODES, EscapeParser, type EscapeSink } from './escape-parser.js';

const TAB_WIDTH = 8;

/** CSI finals that move the cursor. */
const CURSOR_MOVES = new Set(['A', 'B', 'C', 'D', 'E', 'F', 'G', '`', 'H', 'f', 'd']);

export class TextRenderer implements EscapeSink {
  /** Finished lines; the line at `row` lives in `cur` while it is being edited. */
  private lines: string[] = [];
  private cur: string[] = [];
  private row = 0;
  private col = 0;
  private saved: { row: number; col: number } = { row: 0, col: 0 };
  private readonly parser = new EscapeParser(this);
  private readonly decoder = new TextDecoder('utf-8');
  /** The terminal's width, when known: a character written past the last column wraps. */
  private readonly cols: number | undefined;
  /** The last column was written: the next character goes to the start of the next row. */
  private wrapPending = false;
  /** The main screen while the alternate screen is shown. */
  private main: { lines: string[]; cur: string[]; row: number; col: number } | null = null;
  /** Deepest row the cursor reached. */
  private _maxRow = 0;

  constructor(opts: { cols?: number } = {}) {
    this.cols = opts.cols !== undefined && opts.cols > 0 ? opts.cols : undefined;
  }

  /** The cursor's row (0: the first line written). */
  get cursorRow(): number {
    return this.row;
  }

  /** The deepest row the cursor reached so far. */
  get maxRow(): number {
    return this._maxRow;
  }

  /** Feeds raw bytes (decoded as UTF-8, split characters kept across calls) or decoded text. */
  write(data: Uint8Array | string): void {
    this.parser.parse(typeof data === 'string' ? ENCODER.encode(data) : data);
  }

  /** The rendered lines, each right-trimmed. */
  lineList(): string[] {
    const all = this.lines.slice();
    all[this.row] = this.cur.join('');
    for (let i = 0; i < all.length; i++) all[i] = (all[i] ?? '').replace(/\s+$/u, '');
    return all;
  }

  /** The line the cursor is on (not right-trimmed). */
  currentLine(): string {
    return this.cur.join('');
  }

  /** The last `n` rows up to the cursor's, joined (a wrapped line's end spans rows). */
  lastRows(n: number): string {
    return [...this.lines.slice(Math.max(0, this.row - n + 1), this.row), this.cur.join('')].join(
      '',
    );
  }

  /** The lines from the first up to and including the cursor's (where an echo can be). */
  linesToCursor(): string[] {
    const upper = this.lines.slice(0, this.row);
    upper.push(this.cur.join(''));
    return upper;
  }

  toString(): string {
    return this.lineList().join('\n');
  }

  /** Renders a whole output in one go. */
  static render(data: Uint8Array | string): string {
    const r = new TextRenderer();
    r.write(data);
    return r.toString();
  }

  print(chunk: Uint8Array, start: number, end: number): void {
    const text = this.decoder.decode(chunk.subarray(start, end), { stream: true });
    for (const ch of text) {
      const c = ch.codePointAt(0)!;
      // C1 controls (U+0080–U+009F) show nothing.
      if (c < 0x80 || c >= 0xa0) this.put(ch);
    }
  }

  execute(byte: number): void {
    this.control(byte);
  }

  escape(intermediates: string, final: number): void {
    if (intermediates !== '') return; // character sets (ESC ( B), alignment (ESC # 8): no text
    switch (final) {
      case 0x37: // ESC 7
        this.saved = { row: this.row, col: this.col };
        return;
      case 0x38: // ESC 8
        this.moveTo(this.saved.row, this.saved.col);
        return;
      case 0x4d: // ESC M
        this.moveTo(Math.max(0, this.row - 1), this.col);
        return;
      case 0x44: // ESC D
        this.moveTo(this.row + 1, this.col);
        return;
      case 0x45: // ESC E
        this.moveTo(this.row + 1, 0);
        return;
      case 0x63: // ESC c
        this.reset();
        return;
    }
  }

  csi(final: number): void {
    this.sequence(this.parser.params(), String.fromCharCode(final));
  }

  private control(c: number): void {
    if (c === 0x0d || c === 0x0a || c === 0x0b || c === 0x0c || c === 0x08)
      this.wrapPending = false;
    switch (c) {
      case 0x0d:
        this.col = 0;
        return;
      case 0x0a:
      case 0x0b:
      case 0x0c:
        // Output reaching us went through the PTY (ONLCR), so a line feed starts a new line.
        this.moveTo(this.row + 1, 0);
        return;
      case 0x08:
        if (this.col > 0) this.col--;
        return;
      case 0x09:
        this.col = (Math.floor(this.col / TAB_WIDTH) + 1) * TAB_WIDTH;
        return;
      default:
        return; // BEL, SO/SI, NUL, DEL, C1: nothing visible
    }
  }

  private sequence(params: string, final: string): void {
    // Cursor moves end a pending wrap; colours and modes do not.
    if (CURSOR_MOVES.has(final)) this.wrapPending = false;
    if (params.startsWith('?') && (final === 'h' || final === 'l')) {
      if (
        params
          .slice(1)
          .split(';')
          .some((p) => ALT_SCREEN_MODES.has(p))
      )
        this.altScreen(final === 'h');
      return;
    }
    if (
      params.startsWith('?') ||
      params.startsWith('>') ||
      params.startsWith('<') ||
      params.startsWith('=')
    )
      return;
    const nums = params.split(';').map((p) => (p === '' ? NaN : Number.parseInt(p, 10)));
    const n = (i: number, dflt: number): number => {
      const v = nums[i];
      return v === undefined || Number.isNaN(v) || v === 0 ? dflt : v;
    };
    const mode = nums[0] === undefined || Number.isNaN(nums[0]) ? 0 : nums[0];
    switch (final) {
      case 'A':
        this.moveTo(Math.max(0, this.row - n(0, 1)), this.col);
        return;
      case 'B':
        this.moveTo(this.row + n(0, 1), this.col);
        return;
      case 'C':
        this.col += n(0, 1);
        return;
      case 'D':
        this.col = Math.max(0, this.col - n(0, 1));
        return;
      case 'E':
        this.moveTo(this.row + n(0, 1), 0);
        return;
      case 'F':
        this.moveTo(Math.max(0, this.row - n(0, 1)), 0);
        return;
      case 'G':
      case '`':
        this.col = n(0, 1) - 1;
        return;
      case 'H':
      case 'f':
        // Rows are absolute screen positions this renderer cannot map; keep the column only.
        this.col = n(1, 1) - 1;
        return;
      case 'K':
        this.eraseInLine(mode);
        return;
      case 'J':
        this.eraseInDisplay(mode);
        return;
      case 'X': {
        const count = n(0, 1);
        for (let i = this.col; i < Math.min(this.cur.length, this.col + count); i++)
          this.cur[i] = ' ';
        return;
      }
      case 'P':
        this.cur.splice(this.col, n(0, 1));
        return;
      case '@':
        if (this.col <= this.cur.length)
          this.cur.splice(this.col, 0, ...Array<string>(n(0, 1)).fill(' '));
        return;
      default:
        return; // SGR and everything else change no text
    }
  }

  private eraseInLine(mode: number): void {
    if (mode === 0) this.cur.length = Math.min(this.cur.length, this.col);
    else if (mode === 1)
      for (let i = 0; i <= Math.min(this.col, this.cur.length - 1); i++) this.cur[i] = ' ';
    else this.cur = [];
  }

  private eraseInDisplay(mode: number): void {
    if (mode === 0) {
      this.cur.length = Math.min(this.cur.length, this.col);
      this.lines.length = Math.min(this.lines.length, this.row + 1);
    } else if (mode === 1) {
      for (let r = 0; r < this.row; r++) this.lines[r] = '';
      this.eraseInLine(1);
    } else {
      // The screen was cleared: what was shown before is gone for the reader too.
      this.lines = [];
      this.cur = [];
      this.row = 0;
    }
  }

  private put(ch: string): void {
    if (this.wrapPending) {
      this.wrapPending = false;
      this.moveTo(this.row + 1, 0);
    }
    while (this.cur.length < this.col) this.cur.push(' ');
    this.cur[this.col] = ch;
    this.col++;
    if (this.cols !== undefined && this.col >= this.cols) {
      this.col = this.cols - 1;
      this.wrapPending = true;
    }
  }

  /** Shows (`on`) or leaves the alternate screen: left, it is gone and the main screen is back. */
  private altScreen(on: boolean): void {
    if (on && !this.main) {
      this.lines[this.row] = this.cur.join('');
      this.main = { lines: this.lines, cur: this.cur, row: this.row, col: this.col };
      this.lines = [];
      this.cur = [];
      this.row = 0;
      this.col = 0;
    } else if (!on && this.main) {
      ({ lines: this.lines, row: this.row, col: this.col } = this.main);
      this.cur = Array.from(this.lines[this.row] ?? '');
      this.main = null;
    }
  }

  private moveTo(row: number, col: number): void {
    if (row !== this.row) {
      this.lines[this.row] = this.cur.join('');
      while (this.lines.length <= row) this.lines.push('');
      this.row = row;
      this.cur = Array.from(this.lines[row] ?? '');
      if (row > this._maxRow) this._maxRow = row;
    }
    this.col = col;
  }

  private reset(): void {
    this.lines = [];
    this.cur = [];
    this.row = 0;
    this.col = 0;
  }
}

const ENCODER = new TextEncoder();
