// Line presets: raw output kept while no turn is open (bounded), from the last prompt's line:
// Enter's echo redraws that line, so the echo is rendered on top of it.
import { MAX_IDLE_RAW_BYTES } from './constants.js';

export class IdleOutput {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  /** The output offset of the first byte kept. */
  private baseAbs = 0;

  /** What is kept, oldest first. */
  get kept(): readonly Uint8Array[] {
    return this.parts;
  }

  /** Keeps a chunk of output at offset `base`, dropping the oldest past MAX_IDLE_RAW_BYTES. */
  keep(chunk: Uint8Array, base: number): void {
    const part =
      chunk.length > MAX_IDLE_RAW_BYTES ? chunk.slice(-MAX_IDLE_RAW_BYTES) : chunk.slice();
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
  }

  /** A turn ended: what is kept is `raw` (its prompt's line, from offset `from`), or nothing
   * from offset `outAbs` on when the line was not stored. */
  reset(raw: Uint8Array | null, from: number, outAbs: number): void {
    this.parts = raw && raw.length > 0 ? [raw.slice()] : [];
    this.bytes = raw?.length ?? 0;
    this.baseAbs = raw ? from : outAbs;
  }

  private dropFirst(): void {
    const dropped = this.parts.shift()!;
    this.bytes -= dropped.length;
    this.baseAbs += dropped.length;
  }
}
