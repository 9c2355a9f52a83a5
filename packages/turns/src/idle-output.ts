// Line presets: raw output kept while no turn is open (bounded), from the last prompt's line:
// Enter's echo redraws that line, so the echo is rendered on top of it.
import { concat } from './bytes.js';
import { MAX_IDLE_RAW_BYTES } from './constants.js';

/** Views dropped from the front before the list of them is compacted (see `dropFront`). */
const COMPACT_AFTER_PARTS = 64;

/** What a dropped view's slot holds until the list is compacted: no bytes, no buffer kept. */
const DROPPED = new Uint8Array(0);

/**
 * Most views kept: past this many, they are joined into one copy. Only a trickle of tiny
 * chunks gets there (a flood's are kilobytes each), whose views would otherwise outweigh their
 * bytes (64 KiB of one-byte chunks: 65,536 views).
 */
const MAX_KEPT_PARTS = 256;

export class IdleOutput {
  /**
   * The kept bytes: views of the chunks given, `parts[head…]`, `size` bytes in all, not copies
   * (but for a trickle of tiny chunks, see MAX_KEPT_PARTS): output printed while no turn is
   * open (a `cat` of a large file at a shell) is kept chunk by chunk, and copying each cost the
   * pipeline worker 0.98 ms per MB with 50 sessions `cat`ing 2 MB each (0.05 with one session).
   */
  private parts: Uint8Array[] = [];
  private head = 0;
  private size = 0;
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

  /** What is kept, oldest first. */
  get kept(): readonly Uint8Array[] {
    return this.head === 0 ? this.parts : this.parts.slice(this.head);
  }

  /**
   * Keeps a chunk of output at offset `base`, dropping the oldest past MAX_IDLE_RAW_BYTES. The
   * chunk is kept as it is, not copied: the caller never changes it afterwards.
   */
  keep(chunk: Uint8Array, base: number): void {
    if (chunk.length > MAX_IDLE_RAW_BYTES) {
      // Only the chunk's end is kept: nothing before it joins up with it.
      this.parts = [chunk.subarray(chunk.length - MAX_IDLE_RAW_BYTES)];
      this.head = 0;
      this.size = MAX_IDLE_RAW_BYTES;
      this.baseAbs = base + chunk.length - MAX_IDLE_RAW_BYTES;
      this.dropped = true;
      return;
    }
    if (this.size === 0) {
      this.parts = [];
      this.head = 0;
      this.baseAbs = base;
    }
    if (chunk.length === 0) return;
    this.parts.push(chunk);
    this.size += chunk.length;
    const over = this.size - MAX_IDLE_RAW_BYTES;
    if (over > 0) {
      this.dropFront(over);
      this.dropped = true;
    }
    if (this.parts.length - this.head > MAX_KEPT_PARTS) {
      this.parts = [concat(this.parts.slice(this.head))];
      this.head = 0;
    }
  }

  /** The prompt's line starts at `lineStart`: output before it is no longer needed. */
  trim(lineStart: number): void {
    if (this.baseAbs < lineStart) this.dropFront(Math.min(lineStart - this.baseAbs, this.size));
    // Output before the prompt's line is not needed: only a drop after its start is a cut.
    this.dropped = this.baseAbs > lineStart;
  }

  /** A turn ended: what is kept is `raw` (its prompt's line, from offset `from`), or nothing
   * from offset `outAbs` on when the line was not stored; `cut`: the line starts before `from`. */
  reset(raw: Uint8Array | null, from: number, outAbs: number, cut = false): void {
    this.parts = raw && raw.length > 0 ? [raw] : [];
    this.head = 0;
    this.size = raw?.length ?? 0;
    this.baseAbs = raw ? from : outAbs;
    this.dropped = cut;
  }

  /** Drops the oldest `n` bytes kept (at most all of them). */
  private dropFront(n: number): void {
    while (n > 0 && this.head < this.parts.length) {
      const first = this.parts[this.head]!;
      if (first.length <= n) {
        // The slot lets go of its view at once: a view keeps its whole read buffer alive, and
        // up to 64 dropped views per session held 17.6 MB of buffers for 50 sessions `cat`ing
        // side by side (3.4 MB once let go: the bound's worth).
        this.parts[this.head] = DROPPED;
        this.head++;
        n -= first.length;
        this.size -= first.length;
        this.baseAbs += first.length;
      } else {
        this.parts[this.head] = first.subarray(n);
        this.size -= n;
        this.baseAbs += n;
        n = 0;
      }
    }
    // The dropped views go once they are many: a head index, not a shift per chunk.
    if (this.head >= COMPACT_AFTER_PARTS && 2 * this.head >= this.parts.length) {
      this.parts = this.parts.slice(this.head);
      this.head = 0;
    }
  }
}
