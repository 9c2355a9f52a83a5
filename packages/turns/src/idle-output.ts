// Line presets: raw output kept while no turn is open (bounded), from the last prompt's line:
// Enter's echo redraws that line, so the echo is rendered on top of it.
import { MAX_IDLE_RAW_BYTES } from './constants.js';

/** The smallest buffer the kept output starts in (a prompt line with its typed input fits). */
const MIN_BUFFER_BYTES = 1024;

export class IdleOutput {
  /**
   * The kept bytes are `buf[start, end)`: one buffer, reused and grown to at most twice the
   * bound, instead of a copy per chunk — output printed while no turn is open (a `cat` of a large
   * file at a shell) is kept chunk by chunk, and a copy per chunk made garbage of every byte.
   */
  private buf = new Uint8Array(0);
  private start = 0;
  private end = 0;
  /** The output offset of the first byte kept. */
  private baseAbs = 0;
  /** Output of the prompt's line was dropped (see `cut`). */
  private dropped = false;

  /**
   * The kept output no longer reaches back to the prompt's line: a paste longer than
   * MAX_IDLE_RAW_BYTES was echoed on it, and only the end of that echo is kept.
   */
  get cut(): boolean {
    return this.dropped;
  }

  /** What is kept, oldest first: views, valid until the next change. */
  get kept(): readonly Uint8Array[] {
    return this.end > this.start ? [this.buf.subarray(this.start, this.end)] : [];
  }

  /** Keeps a chunk of output at offset `base`, dropping the oldest past MAX_IDLE_RAW_BYTES. */
  keep(chunk: Uint8Array, base: number): void {
    if (chunk.length > MAX_IDLE_RAW_BYTES) {
      // Only the chunk's end is kept: nothing before it joins up with it.
      this.start = this.end = 0;
      this.baseAbs = base + chunk.length - MAX_IDLE_RAW_BYTES;
      this.dropped = true;
      this.append(chunk.subarray(chunk.length - MAX_IDLE_RAW_BYTES));
      return;
    }
    if (this.end === this.start) {
      this.start = this.end = 0;
      this.baseAbs = base;
    }
    const over = this.end - this.start + chunk.length - MAX_IDLE_RAW_BYTES;
    if (over > 0) {
      this.start += over;
      this.baseAbs += over;
      this.dropped = true;
    }
    this.append(chunk);
  }

  /** The prompt's line starts at `lineStart`: output before it is no longer needed. */
  trim(lineStart: number): void {
    if (this.baseAbs < lineStart) {
      const cut = Math.min(lineStart - this.baseAbs, this.end - this.start);
      this.start += cut;
      this.baseAbs += cut;
    }
    // Output before the prompt's line is not needed: only a drop after its start is a cut.
    this.dropped = this.baseAbs > lineStart;
  }

  /** A turn ended: what is kept is `raw` (its prompt's line, from offset `from`), or nothing
   * from offset `outAbs` on when the line was not stored; `cut`: the line starts before `from`. */
  reset(raw: Uint8Array | null, from: number, outAbs: number, cut = false): void {
    this.start = this.end = 0;
    // Copied in (set() copies right even from a view of this buffer).
    if (raw && raw.length > 0) this.append(raw);
    this.baseAbs = raw ? from : outAbs;
    this.dropped = cut;
  }

  /** Appends `bytes` after the kept ones (at most MAX_IDLE_RAW_BYTES are kept with them). */
  private append(bytes: Uint8Array): void {
    const kept = this.end - this.start;
    if (this.end + bytes.length > this.buf.length) {
      const need = kept + bytes.length;
      if (2 * need <= this.buf.length) {
        // Moved to the front, leaving half the buffer free: what moves is at most the bound,
        // once per bound's worth appended.
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        const size = Math.max(
          need,
          Math.min(2 * MAX_IDLE_RAW_BYTES, Math.max(MIN_BUFFER_BYTES, 2 * need)),
        );
        const grown = new Uint8Array(size);
        grown.set(this.buf.subarray(this.start, this.end));
        this.buf = grown;
      }
      this.start = 0;
      this.end = kept;
    }
    this.buf.set(bytes, this.end);
    this.end += bytes.length;
  }
}
