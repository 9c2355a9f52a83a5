import { findDetachKey } from './detach-key.js';

/**
 * Watches the user's keystrokes, chunk by chunk, for the detach key (any of its encodings, see
 * detachKeyEncodings). Bytes typed before the key reach the program; the key itself and
 * everything typed after it (in the same chunk or a later one, while the detach is under way)
 * do not. Allocates nothing per chunk but the result of a hit.
 */
export class DetachScanner {
  private seen = false;

  constructor(private readonly encodings: readonly Uint8Array[]) {}

  /** Whether the detach key has been typed. */
  get detached(): boolean {
    return this.seen;
  }

  /** How many bytes at the start of `chunk` go to the program (all of them, unless the key is in it). */
  scan(chunk: Uint8Array): number {
    if (this.seen) return 0;
    const hit = findDetachKey(chunk, this.encodings);
    if (!hit) return chunk.length;
    this.seen = true;
    return hit.index;
  }
}
