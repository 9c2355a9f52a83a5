// One pass of the escape parser over a session's output, for everything that reads the stream:
// the line watcher (visible text, line feeds, switches of the alternate screen), the screen
// watcher (OSC strings, where agents report their state), flood compaction (which stretches
// only write the line under the cursor) and the terminal modes the program turned on (bracketed
// paste, application cursor keys, mouse and focus reports: what an injection and a detach need
// to know). Each byte is parsed once, whoever reads it.
import { StringDecoder } from 'node:string_decoder';
import { copyInto } from './bytes.js';
import { ALT_SCREEN_MODES, EscapeParser, type EscapeSink } from './escape-parser.js';

const CR = 0x0d;
const LF = 0x0a;
const TAB = 0x09;
const BS = 0x08;
const BEL = 0x07;
const DEL = 0x7f;
/** The chunk between scans: none (the scanner keeps no bytes of the last one alive). */
const NO_BYTES = new Uint8Array(0);

/**
 * Told which stretches of the stream only write the current line (printable text, CR, LF, TAB,
 * BS, BEL, SGR colours and erase-in-line): what flood compaction may drop. Offsets are stream
 * offsets (bytes since the scan began).
 */
export interface LineLocalListener {
  /** A line starts at `at` (right after a CR LF pair). */
  lineStart(at: number): void;
  /** A byte that may act beyond the current line: nothing before it may be dropped. */
  nonLocal(): void;
  /** An SGR sequence (`CSI params m`) starting at `at`; `reset` when it resets all colours. */
  sgr(at: number, params: string, reset: boolean): void;
}

/** Visible text up to a switch of the alternate screen (or the chunk's end). */
export interface TextSegment {
  /** Index in the chunk just after the segment (after the switch's sequence). */
  end: number;
  text: string;
  /** Byte indices, from the segment's start, of the line feeds that reached the text. */
  newlines: number[];
  /** The alternate screen is shown (true) or left (false) at the segment's end; null: no switch. */
  alt: boolean | null;
}

/** What one chunk of output holds, for the readers that asked. */
export interface ChunkScan {
  /** The visible text, cut at alternate-screen switches (empty unless `text` was asked for). */
  segments: TextSegment[];
  /** Payloads of the OSC sequences that ended in the chunk (unless `osc` was not asked for). */
  osc: string[];
  /** A tracked mode was turned on or off in the chunk (see OutputScan.modes). */
  modesChanged: boolean;
  /**
   * The chunk turns focus reports off (`CSI ? 1004 l`), whether or not they were on: a terminal
   * whose focus the daemon follows wants them on again.
   */
  focusReportsOff: boolean;
  /**
   * What a terminal answers to the device-attribute queries in the chunk (with `queries`), in
   * order: programs wait a moment for them at start and take a late answer for typed keys.
   */
  answers: string[];
  /**
   * The chunk holds a query a terminal answers from its state (with `queries`): a status or
   * cursor position report (`CSI … n`), a mode report (`CSI … $ p`), a DCS string (a setting's
   * report, `DCS $ q`), or a C1 control (which may introduce either). The screen model answers
   * these when it parses them, so it must parse up to them now.
   */
  screenQuery: boolean;
}

/**
 * Private modes (`CSI ? n h` / `l`) followed: the alternate screen (1049, 1047, 47), application
 * cursor keys (1), the cursor's visibility (25), mouse reports (1000–1006, 1015), focus reports
 * (1004) and bracketed paste (2004).
 */
export const TRACKED_MODES: ReadonlySet<number> = new Set([
  1, 25, 47, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 1047, 1049, 2004,
]);

export interface OutputScanOptions {
  /** Collect the visible text (line presets). */
  text?: boolean;
  /** Collect OSC payloads (screen presets with state signals). */
  osc?: boolean;
  /** Follow line-local stretches (flood compaction). */
  lines?: LineLocalListener;
  /** Follow the TRACKED_MODES the program turns on and off. */
  modes?: boolean;
  /**
   * Answer device-attribute queries (DA1 `CSI c`, DA2 `CSI > c`) as xterm does, and tell the
   * queries only the screen model can answer (ChunkScan.screenQuery).
   */
  queries?: boolean;
}

/**
 * xterm's answers to the device-attribute queries, by the query's parameters (what
 * @xterm/headless answers as "xterm"): primary (`CSI c`, `CSI 0 c`) and secondary (`CSI > c`).
 */
export const DEVICE_ATTRIBUTES: ReadonlyMap<string, string> = new Map([
  ['', '\x1b[?1;2c'],
  ['0', '\x1b[?1;2c'],
  ['>', '\x1b[>0;276;0c'],
  ['>0', '\x1b[>0;276;0c'],
]);

/** The private mode of focus reports (`CSI ? 1004 h`). */
const FOCUS_REPORTS = 1004;

/** C0 controls kept in the text: backspace, tab, line feed, carriage return. */
function keptControl(b: number): boolean {
  return b === BS || b === TAB || b === LF || b === CR;
}

/** C0 controls that write only the current line (or nothing). */
function lineLocalControl(b: number): boolean {
  return b === CR || b === LF || b === TAB || b === BS || b === BEL || b === DEL;
}

/** Whether the CSI's parameters are plain numbers (`1;31`, `38:2:1:2:3`): no private marker. */
function plainParams(parser: EscapeParser): boolean {
  if (parser.paramsLong) return false;
  for (let i = 0; i < parser.paramLength; i++) {
    const c = parser.paramByte(i);
    if (!((c >= 0x30 && c <= 0x39) || c === 0x3b || c === 0x3a)) return false;
  }
  return true;
}

/** The streaming scan of one session's output (state carries over between chunks). */
export class OutputScan implements EscapeSink {
  private readonly parser: EscapeParser;
  private readonly wantText: boolean;
  private readonly wantOsc: boolean;
  private readonly lines: LineLocalListener | null;
  private readonly wantModes: boolean;
  private readonly on = new Set<number>();
  private modesChanged = false;
  private focusOff = false;
  private readonly wantQueries: boolean;
  private answers: string[] = [];
  private screenQuery = false;
  private readonly decoder = new StringDecoder('utf8');
  private scratch = new Uint8Array(4096);
  /** The chunk being scanned, its stream offset, and the text gathered for its current segment. */
  private chunk: Uint8Array = NO_BYTES;
  private base = 0;
  private segStart = 0;
  private kept = 0;
  private whole = true;
  private newlines: number[] = [];
  private segments: TextSegment[] = [];
  private oscs: string[] = [];
  /** Stream offset of the last CR seen (a LF right after it starts a line). */
  private crAt = -2;

  constructor(opts: OutputScanOptions = {}) {
    this.wantText = opts.text === true;
    this.wantOsc = opts.osc === true;
    this.lines = opts.lines ?? null;
    this.wantModes = opts.modes === true;
    this.wantQueries = opts.queries === true;
    // Only a scan that wants payloads has the parser collect them.
    this.parser = new EscapeParser(this, { osc: this.wantOsc });
  }

  /** The TRACKED_MODES on after the chunks scanned so far (with `modes`). */
  get modes(): ReadonlySet<number> {
    return this.on;
  }

  /** Scans the next chunk of the stream. */
  scan(chunk: Uint8Array): ChunkScan {
    this.chunk = chunk;
    this.base = this.parser.offset;
    this.segStart = 0;
    this.kept = 0;
    this.whole = true;
    // Left empty by the last scan, unless it failed half-way.
    if (this.newlines.length > 0) this.newlines = [];
    if (this.segments.length > 0) this.segments = [];
    if (this.oscs.length > 0) this.oscs = [];
    this.modesChanged = false;
    this.focusOff = false;
    if (this.answers.length > 0) this.answers = [];
    this.screenQuery = false;
    this.parser.parse(chunk);
    if (this.wantText) this.endSegment(chunk.length, null);
    const scan: ChunkScan = {
      segments: this.segments,
      osc: this.oscs,
      modesChanged: this.modesChanged,
      focusReportsOff: this.focusOff,
      answers: this.answers,
      screenQuery: this.screenQuery,
    };
    // Nothing of this chunk stays here until the next: a session's text kept from one chunk to
    // the next survived the pipeline worker's young-generation collections when 50 sessions
    // printed side by side (their chunks come far apart).
    this.chunk = NO_BYTES;
    this.segments = [];
    this.newlines = [];
    this.oscs = [];
    return scan;
  }

  print(chunk: Uint8Array, start: number, end: number): void {
    if (this.wantText) this.keep(chunk, start, end);
  }

  execute(byte: number, at: number, inSequence: boolean): void {
    if (this.wantText && keptControl(byte)) {
      if (byte === LF) this.newlines.push(at - this.segStart);
      this.keep(this.chunk, at, at + 1);
    }
    const lines = this.lines;
    if (!lines) return;
    if (inSequence || !lineLocalControl(byte)) {
      lines.nonLocal();
      return;
    }
    const abs = this.base + at;
    if (byte === CR) this.crAt = abs;
    else if (byte === LF && this.crAt === abs - 1) lines.lineStart(abs + 1);
  }

  c1(): void {
    this.lines?.nonLocal();
    if (this.wantQueries) this.screenQuery = true;
  }

  escape(): void {
    this.lines?.nonLocal();
  }

  stringStart(_at: number, introducer: number): void {
    this.lines?.nonLocal();
    if (introducer === 0x50 /* P: DCS */ && this.wantQueries) this.screenQuery = true;
  }

  malformed(): void {
    this.lines?.nonLocal();
  }

  osc(payload: string | null): void {
    if (payload !== null) this.oscs.push(payload);
  }

  csi(final: number, startAbs: number, end: number): void {
    const parser = this.parser;
    if (this.lines) {
      const plain = plainParams(parser);
      if (plain && final === 0x6d /* m */) {
        const params = parser.params();
        // A reset (no parameter, or a first parameter of 0) makes earlier colours irrelevant.
        this.lines.sgr(startAbs, params, params === '' || /^0*(;|$)/.test(params));
      } else if (!(plain && final === 0x4b) /* K */) this.lines.nonLocal();
    }
    if (this.wantQueries) {
      if (final === 0x63 /* c */) {
        const answer = DEVICE_ATTRIBUTES.get(parser.params());
        if (answer !== undefined) this.answers.push(answer);
        return;
      }
      // `CSI … n` (DSR), `CSI … $ p` (DECRQM: its intermediate is the last of its bytes).
      if (
        final === 0x6e /* n */ ||
        (final === 0x70 /* p */ &&
          (parser.paramsLong || parser.paramByte(parser.paramLength - 1) === 0x24)) /* $ */
      )
        this.screenQuery = true;
    }
    if ((final !== 0x68 && final !== 0x6c) /* h, l */ || parser.paramByte(0) !== 0x3f /* ? */)
      return;
    const set = final === 0x68;
    const modes = parser.params().slice(1).split(';');
    if (this.wantModes) {
      for (const m of modes) {
        const n = Number(m);
        if (n === FOCUS_REPORTS && !set) this.focusOff = true;
        if (!TRACKED_MODES.has(n) || this.on.has(n) === set) continue;
        if (set) this.on.add(n);
        else this.on.delete(n);
        this.modesChanged = true;
      }
    }
    if (this.wantText && modes.some((p) => ALT_SCREEN_MODES.has(p))) this.endSegment(end, set);
  }

  /** Ends the current text segment at `end` (a switch of the alternate screen, or the chunk's end). */
  private endSegment(end: number, alt: boolean | null): void {
    const chunk = this.chunk;
    let text = '';
    if (this.kept > 0) {
      const bytes = this.whole
        ? chunk.subarray(this.segStart, this.segStart + this.kept)
        : this.scratch.subarray(0, this.kept);
      text = this.decoder.write(bytes);
    }
    this.segments.push({ end, text, newlines: this.newlines, alt });
    this.segStart = end;
    this.kept = 0;
    this.whole = true;
    this.newlines = [];
  }

  /** Keeps bytes [start, end): in place while they follow the segment's start without a gap. */
  private keep(chunk: Uint8Array, start: number, end: number): void {
    if (this.whole && start === this.segStart + this.kept) {
      this.kept += end - start;
      return;
    }
    if (this.whole) {
      this.whole = false;
      if (this.scratch.length < chunk.length) this.scratch = new Uint8Array(chunk.length * 2);
      copyInto(this.scratch, 0, chunk, this.segStart, this.segStart + this.kept);
    }
    copyInto(this.scratch, this.kept, chunk, start, end);
    this.kept += end - start;
  }
}
