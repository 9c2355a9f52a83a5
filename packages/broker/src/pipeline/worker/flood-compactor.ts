import type { LineLocalListener } from '@clippy/turns';

/**
 * Holds output the screen model has not parsed yet (a screen preset's flood, or any other
 * session's output until its screen is read), and drops what cannot change the model's final
 * state, so that a `cat` of a huge file is not paced by terminal parsing (xterm parses far slower
 * than a PTY delivers).
 *
 * Why dropping is exact: the session's scan of its output (OutputScan, the one parse of the
 * stream) tells this compactor where lines start, where colours change and where a byte may act
 * beyond its line (LineLocalListener); a stretch made only of "line-local" bytes
 * — printable text (UTF-8), CR, LF, TAB, BS, BEL, SGR (`CSI … m`) and erase-in-line (`CSI K`)
 * — only writes the rows the cursor walks through and the current colours. When at least
 * `keepLines` CR LF line starts follow such a stretch (the scrollback plus twice the screen
 * height, see the caller), every row that stretch wrote has been pushed out of the scrollback
 * by the time the stream ends, so the model ends in the same state whether or not it parsed the
 * stretch — but for the colours, which are restored by replaying the stretch's SGR sequences
 * (from its last reset on). Anything else (cursor addressing, modes, scroll regions, OSC, other
 * escapes, C1 controls) makes the bytes before it unskippable.
 */

/** SGR sequences remembered for the colour prefix; beyond this, what came before is kept. */
const MAX_SGR = 16_384;

/** An SGR sequence seen in the held stream, at its offset; a `reset` one clears earlier colours. */
interface SgrEntry {
  at: number;
  seq: string;
  reset: boolean;
}

/** Every entry made here, so that all share one object shape. */
function sgrEntry(at: number, seq: string, reset: boolean): SgrEntry {
  return { at, seq, reset };
}

/**
 * The latest line starts (held offsets, oldest first), at most `capacity` of them, in one buffer
 * made once: a line start is recorded for every line of output, and the array grown and trimmed
 * for them kept tens of KB per session alive through the worker's young-generation collections
 * (measured, 50 sessions `cat`ing 2 MB each, three times: 56 scavenges copying 107 MB of
 * survivors in 327 ms before, 40 copying 43 MB in 147 ms after).
 */
class LineStarts {
  private ring: Float64Array;
  private head = 0;
  private n = 0;

  constructor(capacity: number) {
    this.ring = new Float64Array(capacity);
  }

  get count(): number {
    return this.n;
  }

  get capacity(): number {
    return this.ring.length;
  }

  /** The `k`th oldest kept (0: the oldest). */
  at(k: number): number {
    return this.ring[(this.head + k) % this.ring.length]!;
  }

  push(at: number): void {
    const cap = this.ring.length;
    if (this.n < cap) this.ring[(this.head + this.n++) % cap] = at;
    else {
      this.ring[this.head] = at;
      this.head = (this.head + 1) % cap;
    }
  }

  /** Keeps only the newest from the `k`th oldest on, each moved left by `shift`. */
  keepFrom(k: number, shift: number): void {
    const cap = this.ring.length;
    for (let i = k; i < this.n; i++) this.ring[(this.head + i) % cap]! -= shift;
    this.head = (this.head + k) % cap;
    this.n -= k;
  }

  clear(): void {
    this.head = 0;
    this.n = 0;
  }

  /** Another capacity (the screen was resized): the newest starts are kept. */
  resize(capacity: number): void {
    if (capacity === this.ring.length) return;
    const keep = Math.min(this.n, capacity);
    const ring = new Float64Array(capacity);
    for (let i = 0; i < keep; i++) ring[i] = this.at(this.n - keep + i);
    this.ring = ring;
    this.head = 0;
    this.n = keep;
  }
}

/**
 * The held stream and what the scan said of it. Offsets are in the held stream (0: the first
 * byte held); the scan's stream offsets map to them by `bias` (dropping shifts what follows).
 * The scan reports a chunk's events before the chunk is pushed.
 */
export class FloodCompactor implements LineLocalListener {
  /** Held output: views of the received batches and colour prefixes. */
  private chunks: Uint8Array[] = [];
  private held = 0;
  /** Held offset = stream offset − bias. */
  private bias = 0;
  /** First CR LF line start after the last unskippable byte (-1: none yet). */
  private firstStart = -1;
  /** The latest line starts after `firstStart`, at most keepLines + 1 of them. */
  private readonly recent: LineStarts;
  /** SGR sequences since the last unskippable byte, with their offsets; `reset` ones clear earlier colours. */
  private colourSeqs: SgrEntry[] = [];
  /** Bytes dropped so far (for tests and logs). */
  dropped = 0;

  /** `keepLines`: line starts that must follow a stretch for it to be dropped (see above). */
  constructor(keepLines: number) {
    this.recent = new LineStarts(keepLines + 1);
  }

  /** Line starts that must follow a stretch for it to be dropped (the ring keeps one more). */
  get keepLines(): number {
    return this.recent.capacity - 1;
  }

  set keepLines(n: number) {
    this.recent.resize(n + 1);
  }

  /** Bytes held. */
  get size(): number {
    return this.held;
  }

  /** The next chunk of the stream, after its scan reported its events. */
  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
  }

  lineStart(at: number): void {
    const held = at - this.bias;
    if (this.firstStart < 0) {
      this.firstStart = held;
      return;
    }
    // Only the latest keepLines + 1 starts are ever used.
    this.recent.push(held);
  }

  sgr(at: number, params: string, reset: boolean): void {
    if (this.colourSeqs.length >= MAX_SGR) {
      this.nonLocal();
      return;
    }
    this.colourSeqs.push(sgrEntry(at - this.bias, `\x1b[${params}m`, reset));
  }

  /** Nothing before this point may be dropped: only line starts after it count. */
  nonLocal(): void {
    this.firstStart = -1;
    this.recent.clear();
    this.colourSeqs = [];
  }

  /** Drops what can be dropped and returns everything else, in order; leaves nothing held. */
  drain(): Uint8Array[] {
    this.compact();
    const out = this.chunks;
    this.chunks = [];
    this.bias += this.held;
    this.held = 0;
    this.nonLocal();
    return out;
  }

  /** Drops the droppable stretch now (the caller does this to bound what it holds). */
  compact(): void {
    const needed = this.recent.capacity;
    if (this.firstStart < 0 || this.recent.count < needed) return;
    const oldest = this.recent.count - needed;
    const cut = this.recent.at(oldest);
    const from = this.firstStart;
    if (cut <= from) return;
    // The colours in force at the cut: the stretch's SGR sequences from its last reset on.
    // Plain loops and one object shape throughout: this runs in every flood, and mixed shapes
    // sent V8 into a deoptimize/recompile loop (measured: 319 deoptimizations in three 64 MB floods).
    let first = -1;
    let last = -1;
    for (let k = 0; k < this.colourSeqs.length; k++) {
      const e = this.colourSeqs[k]!;
      if (e.at < from || e.at >= cut) continue;
      if (first < 0 || e.reset) first = k;
      last = k;
    }
    let colourText = '';
    if (first >= 0) for (let k = first; k <= last; k++) colourText += this.colourSeqs[k]!.seq;
    const colours = latin1(colourText);
    // Views of the held chunks, not copies: a flood compacts every few hundred KB, and copying
    // (and allocating) each time cost more than the PTY reads themselves.
    const chunks = slices(this.chunks, 0, from);
    if (colours.length > 0) chunks.push(colours);
    chunks.push(...slices(this.chunks, cut, this.held));
    this.dropped += cut - from;
    const shift = cut - from - colours.length;
    this.chunks = chunks;
    this.held -= shift;
    this.bias += shift;
    // Offsets after the cut move left by `shift`; the colour prefix holds no line start and is
    // itself part of the next droppable stretch.
    this.firstStart = from;
    this.recent.keepFrom(oldest, shift);
    const sgr: SgrEntry[] = [];
    for (const e of this.colourSeqs) if (e.at < from) sgr.push(e);
    let at = from;
    if (first >= 0) {
      for (let k = first; k <= last; k++) {
        const e = this.colourSeqs[k]!;
        sgr.push(sgrEntry(at, e.seq, e.reset));
        at += e.seq.length;
      }
    }
    for (const e of this.colourSeqs)
      if (e.at >= cut) sgr.push(sgrEntry(e.at - shift, e.seq, e.reset));
    this.colourSeqs = sgr;
  }
}

/** The bytes of a Latin-1 string (escape sequences are ASCII). */
function latin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Views of the bytes [start, end) of the stream held in `chunks`. */
function slices(chunks: readonly Uint8Array[], start: number, end: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of chunks) {
    const next = at + c.length;
    if (next > start && at < end) {
      const from = Math.max(start, at) - at;
      const to = Math.min(end, next) - at;
      out.push(from === 0 && to === c.length ? c : c.subarray(from, to));
    }
    at = next;
    if (at >= end) break;
  }
  return out;
}
