// Line presets: raw output kept while no turn is open (bounded), from the last prompt's line:
// Enter's echo redraws that line, so the echo is rendered on top of it.
import { MAX_IDLE_RAW_BYTES } from './constants.js';

export class IdleOutput {
  private parts: Uint8Array[] = [];
  private bytes = 0;
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
    return this.parts;
  }

  /** Keeps a chunk of output at offset `base`, dropping the oldest past MAX_IDLE_RAW_BYTES. */
  keep(chunk: Uint8Array, base: number): void {
    const part =
      chunk.length > MAX_IDLE_RAW_BYTES ? chunk.slice(-MAX_IDLE_RAW_BYTES) : chunk.slice();
    if (part.length < chunk.length) this.dropped = true;
    if (this.parts.length === 0) this.baseAbs = base + chunk.length - part.length;
    this.parts.push(part);
    this.bytes += part.length;
    while (this.bytes - this.parts[0]!.length >= MAX_IDLE_RAW_BYTES) this.dropFirst();
  }

  /** The prompt's line starts at `lineStart`: output before it is no longer needed. */
  trim(lineStart: number): void {
    while (this.parts.length > 0 && this.baseAbs + this.parts[0]!.length <= lineStart)
      this.dropFirst();
    const first = this.parts[0];
    if (first && this.baseAbs < lineStart) {
      const cut = lineStart - this.baseAbs;
      this.parts[0] = first.subarray(cut);
      this.bytes -= cut;
      this.baseAbs = lineStart;
    }
    // Output before the prompt's line is not needed: only a drop after its start is a cut.
    this.dropped = this.baseAbs > lineStart;
  }

  /** A turn ended: what is kept is `raw` (its prompt's line, from offset `from`), or nothing
   * from offset `outAbs` on when the line was not stored; `cut`: the line starts before `from`. */
  reset(raw: Uint8Array | null, from: number, outAbs: number, cut = false): void {
    this.parts = raw && raw.length > 0 ? [raw.slice()] : [];
    this.bytes = raw?.length ?? 0;
    this.baseAbs = raw ? from : outAbs;
    this.dropped = cut;
  }

  private dropFirst(): void {
    const first = this.parts.shift()!;
    this.bytes -= first.length;
    this.baseAbs += first.length;
    this.dropped = true;
  }
}
