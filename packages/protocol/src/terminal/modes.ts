/**
 * Follows the terminal modes a session's output turns on, so that leaving the attach can turn
 * them off again: the alternate screen, mouse reporting, bracketed paste, focus events,
 * application cursor keys and a hidden cursor. A program killed mid-screen never resets them.
 */
export class ModeTracker {
  private readonly on = new Set<number>();
  /** Bytes of an escape sequence cut by a chunk boundary. */
  private tail = '';
  /** Called when the output turns focus reports off (`CSI ? 1004 l`): the attach wants them on. */
  onFocusReportsOff: (() => void) | null = null;

  /** Private modes (`CSI ? n h`) we reset on exit. */
  static readonly TRACKED = new Set([
    1, 25, 47, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1047, 1049, 2004,
  ]);

  feed(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // Fast path: most output chunks hold no private mode sequence at all.
    if (this.tail === '' && buf.indexOf('\x1b[?') < 0) {
      if (buf.length > 0 && buf[buf.length - 1] === 0x1b) this.tail = '\x1b';
      else if (buf.length > 1 && buf[buf.length - 2] === 0x1b && buf[buf.length - 1] === 0x5b)
        this.tail = '\x1b[';
      return;
    }
    const text = this.tail + buf.toString('latin1');
    this.tail = '';
    const re = /\x1b\[\?([\d;]+)([hl])/g;
    let m: RegExpExecArray | null;
    let lastEnd = 0;
    while ((m = re.exec(text))) {
      lastEnd = re.lastIndex;
      const set = m[2] === 'h';
      for (const part of m[1]!.split(';')) {
        const n = Number(part);
        if (!ModeTracker.TRACKED.has(n)) continue;
        if (set) this.on.add(n);
        else this.on.delete(n);
        if (n === 1004 && !set) this.onFocusReportsOff?.();
      }
    }
    // Keep an unfinished `ESC [ ? digits` at the very end for the next chunk.
    const esc = text.lastIndexOf('\x1b');
    if (
      esc >= lastEnd &&
      /^\x1b(\[(\?[\d;]*)?)?$/.test(text.slice(esc)) &&
      text.length - esc < 32
    ) {
      this.tail = text.slice(esc);
    }
  }

  isOn(mode: number): boolean {
    return this.on.has(mode);
  }

  /** Bytes that undo what the session left on, and always show the cursor and reset colours. */
  restoreSequence(): string {
    let out = '\x1b[0m';
    if (this.on.has(1049)) out += '\x1b[?1049l';
    else if (this.on.has(1047)) out += '\x1b[?1047l';
    else if (this.on.has(47)) out += '\x1b[?47l';
    // Harmless when already off, and a mouse mode left on makes the shell unusable.
    out +=
      '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l';
    if (this.on.has(1)) out += '\x1b[?1l\x1b>';
    out += '\x1b[?25h';
    return out;
  }
}
