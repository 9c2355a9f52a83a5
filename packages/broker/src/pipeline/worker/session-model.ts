import { OutputScan } from '@clippy/turns';
import {
  PIPELINE_PROGRESS_BYTES,
  SCREEN_COMPACT_BYTES,
  SCREEN_FLOOD_BATCH_BYTES,
  SCREEN_FLOOD_BYTES,
  SCREEN_FLOOD_HOLD_MS,
  SCREEN_FLUSH_MS,
  SCREEN_POST_HIGH,
  SCREEN_QUIET_MS,
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
 * leaves. The main thread hears what it needs: detector events and status, modes, progress.
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
  /** A flood is going on: output is held from the screen model (see SCREEN_FLOOD_BYTES). */
  private flooding = false;
  private floodSince = 0;
  private arrived = 0;
  private lastArrivalAt = 0;
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
    // flood stops, and a program that stopped waiting takes the answer for typed keys (Gemini
    // CLI's box read "1;2c" before the question on a loaded machine).
    for (const answer of scan.answers) this.send({ answer });
    if (scan.modesChanged || scan.focusReportsOff)
      this.send({ modes: [...scanner.modes], focusOff: scan.focusReportsOff });
    this.detector?.output(chunk, now, scan);
    this.toScreen(chunk);
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
   * Output on its way to the screen model. Straight through while output is calm; during a
   * flood it is held, and what cannot change the model's final state is dropped unparsed
   * (FloodCompactor), until the flood stops (SCREEN_QUIET_MS) — for a screen preset until it
   * slows down, at most SCREEN_FLOOD_HOLD_MS, since its detector reads the screen.
   */
  private toScreen(chunk: Uint8Array): void {
    this.compactor.push(chunk);
    this.arrived += chunk.length;
    // Full reads mark a flood only where the screen model waits for a replay alone: a screen
    // preset's detector reads the screen, and a TUI's frames come as large batches.
    const fullReads = chunk.length >= SCREEN_FLOOD_BATCH_BYTES && !this.detector?.readsScreen;
    this.lastArrivalAt = Date.now();
    if (!this.flooding && (this.arrived > SCREEN_FLOOD_BYTES || fullReads)) {
      this.flooding = true;
      this.floodSince = this.lastArrivalAt;
    }
    if (!this.flooding) this.flushHeld();
    else if (this.compactor.size > SCREEN_COMPACT_BYTES) {
      this.compactor.compact();
      // What is still held cannot be dropped: parsing it cannot wait.
      if (this.compactor.size > SCREEN_COMPACT_BYTES) this.flushHeld();
    }
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
      const now = Date.now();
      // A screen preset's detector reads the screen: its hold ends when the flood slows down,
      // or after SCREEN_FLOOD_HOLD_MS. Any other session's, once the output stopped.
      const goesOn = this.detector?.readsScreen
        ? arrived > SCREEN_FLOOD_BYTES && now - this.floodSince < SCREEN_FLOOD_HOLD_MS
        : now - this.lastArrivalAt < SCREEN_QUIET_MS;
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
