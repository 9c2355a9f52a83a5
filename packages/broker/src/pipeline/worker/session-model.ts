import { OutputScan } from '@clippy/turns';
import {
  PIPELINE_PROGRESS_BYTES,
  SCREEN_COMPACT_BYTES,
  SCREEN_FLOOD_BYTES,
  SCREEN_FLOOD_HOLD_MS,
  SCREEN_FLUSH_MS,
  SCREEN_POST_HIGH,
} from '../../constants.js';
import type { DetectorSetup, ReplyBody } from '../messages.js';
import { FloodCompactor } from './flood-compactor.js';
import { SessionDetector } from './session-detector.js';
import { TerminalModel } from './terminal-model.js';

/**
 * Output that starts counting a window (SCREEN_FLUSH_MS) toward a flood: less is no flood, and
 * each echoed keystroke would otherwise wake the worker twice more, 10 and 20 ms later (on two
 * cores every wake-up of a thread lengthens the next keystroke's echo).
 */
const WINDOW_MIN_BYTES = 1024;

/**
 * One session's output as the pipeline worker takes it, batch by batch: scanned once
 * (OutputScan: the escape parser's one pass), that scan feeding the turn detector, the flood
 * compactor and the tracked modes; then the screen model (xterm) parses what the compactor
 * leaves, when its screen is read. The main thread hears what it needs: detector events and
 * status, modes, progress.
 *
 * When the screen model parses: a session whose detector reads the screen (a screen preset)
 * has it parse as output comes, but for a flood's droppable part (see toScreen). Any other
 * session's screen is read only by a replay (an attach, `clippy screen`, the final screen of a
 * persisted session), by a resize, and by a query only the screen model answers (the cursor
 * position): its output waits in the compactor, bounded by SCREEN_COMPACT_BYTES, until one of
 * those comes. xterm parses some 30–40 MB/s here, a few times slower than the scan (profiled:
 * at least 110 MB/s), and most output is never replayed: a flood's end, a keystroke's echo, an
 * exited session's last screen are parsed only if someone looks.
 */
export class SessionModel {
  private readonly compactor: FloodCompactor;
  private readonly term: TerminalModel;
  private detector: SessionDetector | null = null;
  /** Made at the first output, when the detector (and what it reads of a scan) is known. */
  private scanner: OutputScan | null = null;
  private rows: number;
  /** Bytes received, and the progress last reported (see PIPELINE_PROGRESS_BYTES). */
  private received = 0;
  private reported = 0;
  /** The main thread holds the PTY for this session's backlog: every progress is reported. */
  private held = false;
  /** A screen preset's flood is going on: its output is held (see SCREEN_FLOOD_BYTES). */
  private flooding = false;
  private floodSince = 0;
  private arrived = 0;
  private tick: NodeJS.Timeout | null = null;
  private closed = false;

  /** Output bytes the screen model never had to parse (flood compaction), for tests and logs. */
  get dropped(): number {
    return this.compactor.dropped;
  }

  constructor(
    cols: number,
    rows: number,
    private readonly scrollback: number,
    private readonly send: (reply: ReplyBody) => void,
  ) {
    this.rows = rows;
    this.compactor = new FloodCompactor(this.keepLines());
    this.term = new TerminalModel(
      cols,
      rows,
      scrollback,
      () => this.parsed(),
      (answer) => this.send({ answer }),
    );
  }

  detect(setup: DetectorSetup): void {
    this.detector?.dispose();
    this.detector = new SessionDetector(setup, () => this.term.snapshot(), this.send);
    // A detector that reads the screen reads it as it is after the output held so far.
    if (this.detector.readsScreen) this.flushHeld();
  }

  output(chunk: Uint8Array, now: number): void {
    if (this.closed) return;
    this.received += chunk.length;
    // The one parse of these bytes: detection, compaction and modes read the same scan.
    const scanner = (this.scanner ??= new OutputScan({
      ...this.detector?.scanNeeds,
      lines: this.compactor,
      modes: true,
      queries: true,
    }));
    const scan = scanner.scan(chunk);
    // Answered from the scan, at once: the screen model may parse these bytes only when a
    // flood stops or its screen is read, and a program that stopped waiting takes the answer for typed keys (Gemini
    // CLI's box read "1;2c" before the question on a loaded machine).
    for (const answer of scan.answers) this.send({ answer });
    if (scan.modesChanged || scan.focusReportsOff)
      this.send({ modes: [...scanner.modes], focusOff: scan.focusReportsOff });
    this.detector?.output(chunk, now, scan);
    if (this.detector?.readsScreen) this.toScreen(chunk);
    else this.hold(chunk, scan.screenQuery);
    this.report();
  }

  input(data: Uint8Array, now: number): void {
    this.detector?.input(data, now);
  }

  resize(cols: number, rows: number): void {
    // Held output is dropped by the old size's rules and parsed at the old size, then resized.
    this.flushHeld();
    this.rows = rows;
    this.compactor.keepLines = this.keepLines();
    this.term.resize(cols, rows);
    this.detector?.resize(cols);
    this.detector?.screenParsed();
  }

  /** The replay of the screen after every byte received so far. */
  serialize(done: (replay: string) => void): void {
    this.flushHeld();
    this.term.replayWhenParsed(done);
  }

  partialText(): string | null {
    return this.detector?.partialText() ?? null;
  }

  dropUntaken(now: number): void {
    this.detector?.dropUntaken(now);
  }

  recordedEnd(startedAt: number, now: number, tail: string | null): void {
    this.detector?.recordedEnd(startedAt, now, tail);
  }

  /** The main thread holds the PTY for the backlog (`on`), or no longer. */
  setHeld(on: boolean): void {
    this.held = on;
    this.report();
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.tick) clearTimeout(this.tick);
    this.tick = null;
    this.detector?.dispose();
    this.term.dispose();
  }

  /**
   * Output of a session whose screen is read only by a replay: held, what cannot change the
   * model's final state dropped unparsed (FloodCompactor) once SCREEN_COMPACT_BYTES are held,
   * parsed when the screen is read (serialize, resize), when what is held cannot be dropped and
   * passes that bound, or at once when the output asks what only the screen model answers.
   * No timer: nothing happens here but on output and on a read.
   */
  private hold(chunk: Uint8Array, screenQuery: boolean): void {
    this.compactor.push(chunk);
    if (screenQuery) this.flushHeld();
    else this.boundHeld();
  }

  /**
   * Output of a session whose detector reads the screen, on its way to the screen model.
   * Straight through while output is calm; during a flood it is held, and what cannot change the
   * model's final state is dropped unparsed (FloodCompactor), until the flood slows down, at most
   * SCREEN_FLOOD_HOLD_MS, so that the detector's screen is never far behind.
   */
  private toScreen(chunk: Uint8Array): void {
    this.compactor.push(chunk);
    this.arrived += chunk.length;
    if (!this.flooding && this.arrived > SCREEN_FLOOD_BYTES) {
      this.flooding = true;
      this.floodSince = Date.now();
    }
    if (!this.flooding) this.flushHeld();
    else this.boundHeld();
    // Counts the output per window; a timer, not a poll: it runs only while output comes, and
    // not for a trickle that is nowhere near a flood (a keystroke's echo: two wake-ups less).
    if (this.flooding || this.arrived >= WINDOW_MIN_BYTES)
      this.tick ??= setTimeout(() => this.windowEnd(), SCREEN_FLUSH_MS);
  }

  private windowEnd(): void {
    this.tick = null;
    if (this.closed) return;
    const arrived = this.arrived;
    this.arrived = 0;
    if (this.flooding) {
      // The detector reads the screen: the hold ends when the flood slows down, or after
      // SCREEN_FLOOD_HOLD_MS.
      const goesOn =
        arrived > SCREEN_FLOOD_BYTES && Date.now() - this.floodSince < SCREEN_FLOOD_HOLD_MS;
      // Also while the screen model is still busy with earlier output: what waits here may still
      // be dropped, what waits there is parsed.
      if (goesOn || this.term.backlog >= SCREEN_POST_HIGH) {
        this.tick = setTimeout(() => this.windowEnd(), SCREEN_FLUSH_MS);
        return;
      }
      this.flooding = false;
      this.flushHeld();
    }
    if (arrived > 0) this.tick = setTimeout(() => this.windowEnd(), SCREEN_FLUSH_MS);
  }

  /** Past SCREEN_COMPACT_BYTES held, drops what may be dropped, and parses what may not. */
  private boundHeld(): void {
    if (this.compactor.size <= SCREEN_COMPACT_BYTES) return;
    this.compactor.compact();
    // What is still held cannot be dropped: parsing it cannot wait.
    if (this.compactor.size > SCREEN_COMPACT_BYTES) this.flushHeld();
  }

  /** Hands everything held to the screen model (dropping what may be dropped first). */
  private flushHeld(): void {
    if (this.compactor.size === 0) return;
    for (const chunk of this.compactor.drain()) this.term.write(chunk);
  }

  /** The screen model parsed a write. */
  private parsed(): void {
    this.detector?.screenParsed();
    this.report();
  }

  /** Bytes received and done with: dropped, or parsed by the screen model. */
  private get consumed(): number {
    return Math.max(this.reported, this.received - this.compactor.size - this.term.backlog);
  }

  /** Tells the main thread how far the worker got, when that matters to it. */
  private report(): void {
    const consumed = this.consumed;
    if (consumed === this.reported) return;
    if (consumed - this.reported >= PIPELINE_PROGRESS_BYTES || this.held) {
      this.reported = consumed;
      this.send({ consumed });
    }
  }

  /**
   * Lines that must follow a stretch of text before it may be dropped: enough to push every row
   * it wrote out of the scrollback, even from the top of the screen.
   */
  private keepLines(): number {
    return this.scrollback + 2 * this.rows + 2;
  }
}
