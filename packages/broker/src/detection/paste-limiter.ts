import { MAX_TYPED_CHARS } from '@clippy/turns';

/**
 * Bytes of one bracketed paste passed on to the input tracking of the turn engine: as much as
 * the engine tracks (MAX_TYPED_CHARS), since its echo removal needs the end of the text (a
 * 100 KB question cut to 16 KB left its echo in the answer). Tracking is linear in a paste's
 * length; the bound keeps a runaway paste from being copied to the detector whole.
 */
export const PASTE_TRACK_BYTES = MAX_TYPED_CHARS;

const START = Buffer.from('\x1b[200~');
const END = Buffer.from('\x1b[201~');
/** Nothing held back (shared: never written to). */
const NOTHING = Buffer.alloc(0);

/**
 * Shortens bracketed pastes in an input stream to their first PASTE_TRACK_BYTES (markers
 * kept, so the tracker still sees one paste); everything outside pastes passes unchanged.
 * Markers may be split across chunks. Only what the detector sees is shortened: the PTY
 * always gets every byte.
 */
export class PasteLimiter {
  private inPaste = false;
  private kept = 0;
  /** A possible marker prefix held back from the end of the previous chunk. */
  private held: Buffer = NOTHING;

  constructor(private readonly limit = PASTE_TRACK_BYTES) {}

  /** `chunk` with its pastes shortened: `chunk` itself when it holds no marker (a keystroke). */
  filter(chunk: Uint8Array): Uint8Array {
    // Every keystroke comes here: outside a paste, a chunk with no ESC costs one scan, no copy.
    // (What is held back starts with ESC: a marker's start.)
    if (!this.inPaste && this.held.length === 0 && chunk.indexOf(0x1b) < 0) return chunk;
    let buf = this.held.length
      ? Buffer.concat([this.held, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.held = NOTHING;
    const out: Buffer[] = [];
    while (buf.length) {
      const marker = this.inPaste ? END : START;
      const at = buf.indexOf(marker);
      // A write that is one ESC is the Esc key (a key press comes in one write): it goes on to
      // the tracker at once, which takes it as such, rather than waiting for a marker's rest.
      const lone = !this.inPaste && chunk.length === 1 && chunk[0] === 0x1b;
      const upto = at < 0 ? buf.length - (lone ? 0 : partialSuffix(buf, marker)) : at;
      const body = buf.subarray(0, upto);
      if (this.inPaste) {
        const room = Math.max(0, this.limit - this.kept);
        out.push(body.subarray(0, room));
        this.kept += body.length;
      } else {
        out.push(body);
      }
      if (at < 0) {
        this.held = Buffer.from(buf.subarray(upto));
        break;
      }
      out.push(marker);
      this.inPaste = !this.inPaste;
      this.kept = 0;
      buf = buf.subarray(at + marker.length);
    }
    return Buffer.concat(out);
  }
}

/** Length of the longest suffix of `buf` that is a proper prefix of `marker`. */
function partialSuffix(buf: Buffer, marker: Buffer): number {
  for (let n = Math.min(marker.length - 1, buf.length); n > 0; n--) {
    if (buf.subarray(buf.length - n).equals(marker.subarray(0, n))) return n;
  }
  return 0;
}
