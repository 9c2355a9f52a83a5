/**
 * Holds output the screen model has not been sent yet during a flood, and drops what cannot
 * change the model's final state, so that a `cat` of a huge file is not paced by terminal
 * parsing (xterm parses far slower than a PTY delivers).
 *
 * Why dropping is exact: the held stream is scanned; a stretch made only of "line-local" bytes
 * — printable text (UTF-8), CR, LF, TAB, BS, BEL, SGR (`CSI … m`) and erase-in-line (`CSI K`)
 * — only writes the rows the cursor walks through and the current colours. When at least
 * `keepLines` CR LF line starts follow such a stretch (the scrollback plus twice the screen
 * height, see the caller), every row that stretch wrote has been pushed out of the scrollback
 * by the time the stream ends, so the model ends in the same state whether or not it parsed the
 * stretch — but for the colours, which are restored by replaying the stretch's SGR sequences
 * (from its last reset on). Anything else (cursor addressing, modes, scroll regions, OSC, other
 * escapes, C1 controls) makes the bytes before it unskippable.
 */

const CR = 0x0d;
const LF = 0x0a;
const ESC = 0x1b;

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

const enum Scan {
  Ground,
  Esc,
  Csi,
}

export class FloodCompactor {
  /** Held output: node-pty's Buffers, views of them and colour prefixes (Buffers all: one kind for V8). */
  private chunks: Buffer[] = [];
  private held = 0;
  private state: Scan = Scan.Ground;
  private prev = 0;
  private csiStart = 0;
  private csiParams = '';
  private csiPlain = true;
  /** First CR LF line start after the last unskippable byte (-1: none yet). */
  private firstStart = -1;
  /** The latest line starts after `firstStart`, at most keepLines + 1 of them. */
  private recent: number[] = [];
  /** SGR sequences since the last unskippable byte, with their offsets; `reset` ones clear earlier colours. */
  private sgr: SgrEntry[] = [];
  /** Bytes dropped so far (for tests and logs). */
  dropped = 0;

  /** `keepLines`: line starts that must follow a stretch for it to be dropped (see above). */
  constructor(public keepLines: number) {}

  /** Bytes held. */
  get size(): number {
    return this.held;
  }

  push(chunk: Buffer): void {
    const base = this.held;
    this.chunks.push(chunk);
    this.held += chunk.length;
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.state === Scan.Ground) {
        // Fast path over plain text: only controls and the lead byte of a UTF-8 C1 need a look.
        let j = i;
        while (j < n) {
          const b = chunk[j]!;
          if (b < 0x20 || b === 0xc2) break;
          j++;
        }
        if (j > i) this.prev = chunk[j - 1]!;
        if (j === n) return;
        i = j;
        if (chunk[i] === 0xc2 && i + 1 < n) {
          // The byte after it decides (C1 control or a Latin-1 letter): both go the slow way.
          this.scan(chunk[i]!, base + i);
          i++;
        }
      }
      this.scan(chunk[i]!, base + i);
      i++;
    }
  }

  /** Drops what can be dropped and returns everything else, in order; leaves nothing held. */
  drain(): Buffer[] {
    this.compact();
    const out = this.chunks;
    this.chunks = [];
    this.held = 0;
    this.firstStart = -1;
    this.recent = [];
    this.sgr = [];
    return out;
  }

  /** Drops the droppable stretch now (the caller does this to bound memory during a flood). */
  compact(): void {
    const needed = this.keepLines + 1;
    if (this.firstStart < 0 || this.recent.length < needed) return;
    const cut = this.recent[this.recent.length - needed]!;
    const from = this.firstStart;
    if (cut <= from) return;
    // The colours in force at the cut: the stretch's SGR sequences from its last reset on.
    // Plain loops and one object shape throughout: this runs in every flood, and mixed shapes
    // sent V8 into a deoptimize/recompile loop (measured: 319 deoptimizations in three 64 MB floods).
    let first = -1;
    let last = -1;
    for (let k = 0; k < this.sgr.length; k++) {
      const e = this.sgr[k]!;
      if (e.at < from || e.at >= cut) continue;
      if (first < 0 || e.reset) first = k;
      last = k;
    }
    let colourText = '';
    if (first >= 0) for (let k = first; k <= last; k++) colourText += this.sgr[k]!.seq;
    const colours = Buffer.from(colourText, 'latin1');
    // Views of the held chunks, not copies: a flood compacts every few hundred KB, and copying
    // (and allocating) each time cost more than the PTY reads themselves.
    const chunks = slices(this.chunks, 0, from);
    if (colours.length > 0) chunks.push(colours);
    chunks.push(...slices(this.chunks, cut, this.held));
    this.dropped += cut - from;
    const shift = cut - from - colours.length;
    this.chunks = chunks;
    this.held -= shift;
    // Offsets after the cut move left by `shift`; the colour prefix holds no line start and is
    // itself part of the next droppable stretch.
    this.firstStart = from;
    const recent = [cut - shift];
    for (const p of this.recent) if (p > cut) recent.push(p - shift);
    this.recent = recent;
    if (this.csiStart >= cut) this.csiStart -= shift;
    const sgr: SgrEntry[] = [];
    for (const e of this.sgr) if (e.at < from) sgr.push(e);
    let at = from;
    if (first >= 0) {
      for (let k = first; k <= last; k++) {
        const e = this.sgr[k]!;
        sgr.push(sgrEntry(at, e.seq, e.reset));
        at += e.seq.length;
      }
    }
    for (const e of this.sgr) if (e.at >= cut) sgr.push(sgrEntry(e.at - shift, e.seq, e.reset));
    this.sgr = sgr;
  }

  private scan(b: number, at: number): void {
    const prev = this.prev;
    this.prev = b;
    switch (this.state) {
      case Scan.Ground:
        if (b === LF) {
          if (prev === CR) this.lineStart(at + 1);
        } else if (b === ESC) {
          this.state = Scan.Esc;
        } else if (b < 0x20 && b !== CR && b !== 0x09 && b !== 0x08 && b !== 0x07) {
          this.impure();
        } else if (prev === 0xc2 && b >= 0x80 && b <= 0x9f) {
          this.impure(); // a C1 control encoded in UTF-8
        }
        return;
      case Scan.Esc:
        if (b === 0x5b /* [ */) {
          this.state = Scan.Csi;
          this.csiStart = at - 1;
          this.csiParams = '';
          this.csiPlain = true;
        } else {
          this.state = Scan.Ground;
          this.impure();
        }
        return;
      case Scan.Csi:
        if (b >= 0x40 && b <= 0x7e) {
          this.state = Scan.Ground;
          if (this.csiPlain && b === 0x6d /* m */) this.sgrSeen(this.csiStart);
          else if (!(this.csiPlain && b === 0x4b /* K */)) this.impure();
        } else if ((b >= 0x30 && b <= 0x39) || b === 0x3b || b === 0x3a) {
          if (this.csiParams.length < 64) this.csiParams += String.fromCharCode(b);
          else this.csiPlain = false;
        } else {
          // Private prefixes (?, >, =, <), intermediates, or a control inside: not line-local.
          this.csiPlain = false;
          if (b < 0x20) {
            this.state = b === ESC ? Scan.Esc : Scan.Ground;
            this.impure();
          }
        }
        return;
    }
  }

  private lineStart(at: number): void {
    if (this.firstStart < 0) {
      this.firstStart = at;
      return;
    }
    this.recent.push(at);
    // Trimmed in batches: only the latest keepLines + 1 starts are ever used.
    if (this.recent.length > 2 * (this.keepLines + 2))
      this.recent.splice(0, this.recent.length - (this.keepLines + 2));
  }

  private sgrSeen(start: number): void {
    const params = this.csiParams;
    if (this.sgr.length >= MAX_SGR) {
      this.impure();
      return;
    }
    // A reset (no parameter, or a first parameter of 0) makes earlier colours irrelevant.
    const reset = params === '' || /^0*(;|$)/.test(params);
    this.sgr.push(sgrEntry(start, `\x1b[${params}m`, reset));
  }

  /** Nothing before this point may be dropped: only line starts after it count. */
  private impure(): void {
    this.firstStart = -1;
    this.recent = [];
    this.sgr = [];
  }
}

/** Views of the bytes [start, end) of the stream held in `chunks`. */
function slices(chunks: readonly Buffer[], start: number, end: number): Buffer[] {
  const out: Buffer[] = [];
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
