// The turn engine's one escape-sequence state machine (ECMA-48 / VT500, reduced to what text
// needs): bytes in, tokens out to a sink — runs of text, controls, escape and CSI sequences, OSC
// strings. It streams: a sequence or a UTF-8 character may be split across chunks at any byte.
// Its sinks: the streaming stripper (AnsiStripper), the text renderer (TextRenderer) and the scan
// of a session's output that feeds turn detection and flood compaction (OutputScan).

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const DEL = 0x7f;
/** Lead byte of a UTF-8 two-byte character: with 0x80–0x9F after it, a C1 control. */
const C2 = 0xc2;

/** Private modes that select the alternate screen (`CSI ? 1049 h`, and the older 1047 and 47):
 * full-screen programs (less, vim, top) draw there. */
export const ALT_SCREEN_MODES: ReadonlySet<string> = new Set(['1049', '1047', '47']);

/** Longest CSI parameter string kept (mode lists and colours are far shorter). */
export const MAX_CSI_PARAMS = 64;

/** Longest OSC payload kept: titles and status reports are short; a longer one (a clipboard
 * copy, an image) is skipped whole. */
export const MAX_OSC_PAYLOAD_BYTES = 512;

/** Where the parser is: ground (text), or inside a sequence. */
export const enum ParserState {
  Ground,
  Esc,
  EscIntermediate,
  Csi,
  /** OSC payload: ends with BEL or ST (ESC \). */
  Osc,
  OscEsc,
  /** DCS, SOS, PM, APC payload: ends with ST only. */
  Str,
  StrEsc,
}

/** What the parser hands its tokens to. Offsets are indices into the chunk being parsed. */
export interface EscapeSink {
  /** Bytes [start, end) are text: printable ASCII and UTF-8 (never a C0 control or DEL). */
  print(chunk: Uint8Array, start: number, end: number): void;
  /**
   * A C0 control or DEL at `at`, executed as a terminal does: in text, or (`inSequence`) inside an
   * ESC or CSI sequence — where ESC then starts a new sequence, and CAN and SUB cancel it.
   */
  execute(byte: number, at: number, inSequence: boolean): void;
  /** A C1 control encoded in UTF-8 ends at `at` (its two bytes were printed as text too). */
  c1?(at: number): void;
  /** A complete escape sequence other than CSI and strings: `ESC intermediates final`. */
  escape(intermediates: string, final: number, at: number): void;
  /**
   * A complete CSI sequence with its final byte; `startAbs` is the stream offset of its ESC, `end`
   * the index after its final byte. Its parameters are read from the parser while this runs
   * (`params()`, `paramByte()`): most sinks never need them as text.
   */
  csi(final: number, startAbs: number, end: number): void;
  /** A string sequence begins at `at`; `introducer`: the byte after ESC (`]` OSC, `P` DCS, …). */
  stringStart?(at: number, introducer: number): void;
  /** A byte that cannot be in a CSI sequence ended it unfinished; the byte is parsed as text. */
  malformed?(at: number): void;
  /**
   * An OSC sequence ended (BEL or ST): its payload, or null when longer than kept. Called only
   * for a parser made with `{ osc: true }`.
   */
  osc?(payload: string | null): void;
}

/** A chunk read four bytes at a time: `at` is the chunk index of `view[0]`'s first byte. */
interface Words {
  view: Uint32Array | null;
  at: number;
}

/** Chunks shorter than this are read byte by byte: a view costs more than it saves on an echo. */
const MIN_WORDS_BYTES = 64;

function wordsOf(chunk: Uint8Array): Words {
  if (chunk.length < MIN_WORDS_BYTES) return { view: null, at: 0 };
  // Typed views must start at a multiple of their element size in the buffer.
  const at = (4 - (chunk.byteOffset & 3)) & 3;
  const view = new Uint32Array(chunk.buffer, chunk.byteOffset + at, (chunk.length - at) >> 2);
  return { view, at };
}

/** Whether byte `b` ends a run of text: a C0 control, DEL, or C2 (maybe a C1 control's lead). */
function endsText(b: number): boolean {
  return b < 0x20 || b === DEL || b === C2;
}

/**
 * Whether any of the four bytes of `x` ends a run of text (endsText), tested all at once: a byte
 * below 0x20 borrows into its top bit, and so does a zero byte left by XOR with 0x7F or 0xC2
 * (the "has a byte less than n" tests of Bit Twiddling Hacks; exact for "any").
 */
function wordEndsText(x: number): boolean {
  const del = x ^ 0x7f7f7f7f;
  const c2 = x ^ 0xc2c2c2c2;
  const below = (x - 0x20202020) & ~x;
  const zero = ((del - 0x01010101) & ~del) | ((c2 - 0x01010101) & ~c2);
  return ((below | zero) & 0x80808080) !== 0;
}

/**
 * The first index from `i` on (below `len`) of a byte that ends a run of text, or `len`. Four
 * bytes at a time where the chunk is long enough: the byte-by-byte loop was most of the scan's
 * time (measured here: 3.5 ms per MB of plain text against 1.3 ms four bytes at a time).
 */
function textEnd(chunk: Uint8Array, words: Words, i: number, len: number): number {
  const view = words.view;
  if (view !== null) {
    // Byte by byte up to the first whole word, then word by word.
    while (i < len && ((i - words.at) & 3) !== 0) {
      if (endsText(chunk[i]!)) return i;
      i++;
    }
    if (i < len) {
      let k = (i - words.at) >> 2;
      const end = view.length;
      while (k < end && !wordEndsText(view[k]!)) k++;
      i = words.at + (k << 2);
    }
  }
  for (; i < len; i++) if (endsText(chunk[i]!)) return i;
  return len;
}

/** Feeds a stream of terminal output to a sink, token by token. */
export class EscapeParser {
  private st: ParserState = ParserState.Ground;
  /** The current CSI's parameter and intermediate bytes (the first MAX_CSI_PARAMS of them). */
  private readonly paramBytes = new Uint8Array(MAX_CSI_PARAMS);
  private paramCount = 0;
  private long = false;
  private intermediates = '';
  /** Stream offset of the current sequence's ESC, and of the next chunk's first byte. */
  private seqStartAbs = 0;
  private base = 0;
  /** The last chunk ended with a C2 byte in text: a C1 control if the next byte is 0x80–0x9F. */
  private pendingC2 = false;
  /** OSC payload bytes, collected only when the sink wants payloads. */
  private readonly payload: number[] | null;
  private payloadTooLong = false;
  private readonly decoder: InstanceType<typeof TextDecoder> | null;

  /** `osc`: collect OSC payloads for the sink's `osc` (only those who read them pay for it). */
  constructor(
    private readonly sink: EscapeSink,
    opts: { osc?: boolean } = {},
  ) {
    this.payload = opts.osc ? [] : null;
    this.decoder = opts.osc ? new TextDecoder() : null;
  }

  /** Where the parser stands after the last chunk. */
  get state(): ParserState {
    return this.st;
  }

  /** Bytes parsed so far (the stream offset of the next chunk). */
  get offset(): number {
    return this.base;
  }

  /**
   * The CSI being handed to `csi`: its parameter and intermediate bytes as text (a private marker
   * included, cut at MAX_CSI_PARAMS).
   */
  params(): string {
    return String.fromCharCode(...this.paramBytes.subarray(0, this.paramCount));
  }

  /** Byte `i` of the CSI's parameters (-1 past them). */
  paramByte(i: number): number {
    return i < this.paramCount ? this.paramBytes[i]! : -1;
  }

  /** How many parameter bytes the CSI has (kept ones: see `paramsLong`). */
  get paramLength(): number {
    return this.paramCount;
  }

  /** The CSI had more parameter bytes than MAX_CSI_PARAMS (the rest were not kept). */
  get paramsLong(): boolean {
    return this.long;
  }

  /** Back to text, the stream starting afresh (a partial sequence is dropped). */
  reset(): void {
    this.st = ParserState.Ground;
    this.pendingC2 = false;
  }

  parse(chunk: Uint8Array): void {
    const sink = this.sink;
    const len = chunk.length;
    let state = this.st;
    let i = 0;
    /** The chunk four bytes at a time, made at the first run of text (see textEnd). */
    let words: Words | undefined;
    if (this.pendingC2 && len > 0) {
      this.pendingC2 = false;
      const b = chunk[0]!;
      if (state === ParserState.Ground && b >= 0x80 && b <= 0x9f) sink.c1?.(0);
    }
    for (; i < len; i++) {
      const b = chunk[i]!;
      if (
        b < 0x20 &&
        (state === ParserState.Esc ||
          state === ParserState.EscIntermediate ||
          state === ParserState.Csi)
      ) {
        // C0 controls inside an escape or CSI sequence are executed by terminals, not part of it;
        // ESC starts a new sequence, CAN and SUB cancel it.
        sink.execute(b, i, true);
        if (b === ESC) {
          state = ParserState.Esc;
          this.seqStartAbs = this.base + i;
          this.intermediates = '';
        } else if (b === CAN || b === SUB) state = ParserState.Ground;
        continue;
      }
      switch (state) {
        case ParserState.Ground: {
          // A run of text is handed over in one go: most output is plain text.
          words ??= wordsOf(chunk);
          let j = i;
          for (;;) {
            j = textEnd(chunk, words, j, len);
            if (j === len || chunk[j] !== C2) break;
            // A C2 byte: the lead of a C1 control when 0x80–0x9F follows, else of a character.
            if (j + 1 === len) {
              this.pendingC2 = true;
              j = len;
              break;
            }
            const next = chunk[j + 1]!;
            if (next >= 0x80 && next <= 0x9f) {
              sink.print(chunk, i, j + 2);
              sink.c1?.(j + 1);
              i = j + 2;
              j = i;
              continue;
            }
            j++;
          }
          if (j > i) sink.print(chunk, i, j);
          if (j === len) {
            i = j;
            break;
          }
          const c = chunk[j]!;
          if (c === ESC) {
            state = ParserState.Esc;
            this.seqStartAbs = this.base + j;
            this.intermediates = '';
          } else sink.execute(c, j, false);
          i = j;
          break;
        }
        case ParserState.Esc:
          if (b === 0x5b) {
            state = ParserState.Csi;
            this.paramCount = 0;
            this.long = false;
          } else if (b === 0x5d) {
            state = ParserState.Osc;
            sink.stringStart?.(i, b);
            this.startPayload();
          } else if (b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) {
            state = ParserState.Str;
            sink.stringStart?.(i, b);
          } else if (b >= 0x20 && b <= 0x2f) {
            state = ParserState.EscIntermediate;
            this.intermediates = String.fromCharCode(b);
          } else {
            // The final byte of a two-byte escape (ESC 7, ESC M, ESC =, …).
            state = ParserState.Ground;
            sink.escape('', b, i);
          }
          break;
        case ParserState.EscIntermediate:
          if (b <= 0x2f) {
            if (this.intermediates.length < MAX_CSI_PARAMS)
              this.intermediates += String.fromCharCode(b);
          } else {
            // ESC ( B, ESC # 8, …
            state = ParserState.Ground;
            sink.escape(this.intermediates, b, i);
          }
          break;
        case ParserState.Csi:
          if (b >= 0x30 && b <= 0x3f) {
            // A run of parameter bytes in one go: TUI output is mostly CSI sequences.
            let j = i;
            let n = this.paramCount;
            const buf = this.paramBytes;
            while (j < len) {
              const c = chunk[j]!;
              if (c < 0x30 || c > 0x3f) break;
              if (n < MAX_CSI_PARAMS) buf[n++] = c;
              else this.long = true;
              j++;
            }
            this.paramCount = n;
            i = j - 1;
          } else if (b >= 0x40 && b <= 0x7e) {
            state = ParserState.Ground;
            sink.csi(b, this.seqStartAbs, i + 1);
          } else if (b >= 0x20 && b <= 0x3f) {
            if (this.paramCount < MAX_CSI_PARAMS) this.paramBytes[this.paramCount++] = b;
            else this.long = true;
          } else {
            // A byte that cannot be in a CSI: the sequence was malformed; the byte is text again.
            state = ParserState.Ground;
            sink.malformed?.(i);
            i--;
          }
          break;
        case ParserState.Osc:
          if (b === BEL) {
            state = ParserState.Ground;
            this.endPayload();
          } else if (b === CAN || b === SUB) state = ParserState.Ground;
          else if (b === ESC) state = ParserState.OscEsc;
          else if (this.payload) this.addPayload(b);
          else {
            // Skipped to its end when nobody reads payloads (a title, a hyperlink's URL).
            let j = i + 1;
            while (j < len) {
              const c = chunk[j]!;
              if (c === BEL || c === ESC || c === CAN || c === SUB) break;
              j++;
            }
            i = j - 1;
          }
          break;
        case ParserState.OscEsc:
          if (b === 0x5c) {
            state = ParserState.Ground;
            this.endPayload();
          } else {
            // ESC not followed by '\': the string ended unfinished and a new escape starts here.
            state = ParserState.Esc;
            this.seqStartAbs = this.base + i - 1;
            this.intermediates = '';
            i--;
          }
          break;
        case ParserState.Str:
          if (b === CAN || b === SUB) state = ParserState.Ground;
          else if (b === ESC) state = ParserState.StrEsc;
          break;
        case ParserState.StrEsc:
          if (b === 0x5c) state = ParserState.Ground;
          else {
            state = ParserState.Esc;
            this.seqStartAbs = this.base + i - 1;
            this.intermediates = '';
            i--;
          }
          break;
      }
    }
    this.st = state;
    this.base += len;
  }

  private startPayload(): void {
    if (!this.payload) return;
    this.payload.length = 0;
    this.payloadTooLong = false;
  }

  private addPayload(b: number): void {
    if (this.payload!.length < MAX_OSC_PAYLOAD_BYTES) this.payload!.push(b);
    else this.payloadTooLong = true;
  }

  private endPayload(): void {
    if (!this.payload) return;
    this.sink.osc?.(
      this.payloadTooLong ? null : this.decoder!.decode(new Uint8Array(this.payload)),
    );
    this.payload.length = 0;
  }
}
