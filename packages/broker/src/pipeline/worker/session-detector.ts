import {
  TurnDetector,
  type ChunkScan,
  type DetectorEvent,
  type OutputScanOptions,
  type ScreenSnapshot,
} from '@clippy/turns';
import { SCREEN_SNAPSHOT_INTERVAL_MS } from '../../constants.js';
import type { DetectorSetup, DetectorStatus, ReplyBody } from '../messages.js';

function sameStatus(a: DetectorStatus | null, b: DetectorStatus): boolean {
  return (
    a !== null &&
    a.turnOpen === b.turnOpen &&
    a.startedAt === b.startedAt &&
    a.inputLine === b.inputLine &&
    a.interruptArmed === b.interruptArmed &&
    a.submits?.sent === b.submits?.sent &&
    a.submits?.taken === b.submits?.taken &&
    a.loads === b.loads
  );
}

/**
 * A session's turn detector as the pipeline worker runs it, beside the session's screen model:
 * fed the output (with the pipeline's scan of it: parsed once), the input and, for a screen
 * preset, renderings of the screen taken after it parsed output (at most one per
 * SCREEN_SNAPSHOT_INTERVAL_MS); one timer at the earliest of the detector's deadline and a
 * pending rendering. What it finds goes to the main thread: events, and the status the main
 * thread mirrors (a turn open, submits taken, the idle input line) when it changes.
 */
export class SessionDetector {
  private readonly detector: TurnDetector;
  private timer: NodeJS.Timeout | null = null;
  private timerAt: number | null = null;
  private snapshotDueAt: number | null = null;
  private lastSnapshotAt = -Infinity;
  private sent: DetectorStatus | null = null;
  private closed = false;

  constructor(
    setup: DetectorSetup,
    /** The screen model's rendering now. */
    private readonly screen: () => ScreenSnapshot,
    private readonly send: (reply: ReplyBody) => void,
  ) {
    this.detector = new TurnDetector({
      preset: setup.preset,
      maxTurnBytes: setup.maxTurnBytes,
      ...(setup.cols ? { cols: setup.cols } : {}),
    });
  }

  /** A screen preset's: it reads renderings of the screen. */
  get readsScreen(): boolean {
    return this.detector.needsScreen;
  }

  /** What the pipeline's scan must collect for this detector. */
  get scanNeeds(): Omit<OutputScanOptions, 'lines'> {
    return this.detector.scanNeeds;
  }

  output(chunk: Uint8Array, now: number, scan: ChunkScan): void {
    this.run(() => this.detector.onOutput(chunk, now, scan));
  }

  input(data: Uint8Array, now: number): void {
    this.run(() => this.detector.onInput(data, now));
  }

  resize(cols: number): void {
    this.detector.resize(cols);
  }

  dropUntaken(now: number): void {
    this.run(() => this.detector.dropUntaken(now));
  }

  recordedEnd(startedAt: number, now: number, tail: string | null): void {
    this.run(() => this.detector.recordedEnd(startedAt, now, tail));
  }

  partialText(): string | null {
    try {
      return this.detector.partialText();
    } catch (err) {
      this.send({ error: (err as Error).stack ?? String(err) });
      return null;
    }
  }

  /** The screen model parsed more output: render it now, or at the next free slot. */
  screenParsed(): void {
    if (!this.detector.needsScreen || this.closed) return;
    const now = Date.now();
    if (now - this.lastSnapshotAt >= SCREEN_SNAPSHOT_INTERVAL_MS) {
      this.snapshotDueAt = null;
      this.run(() => this.takeSnapshot(now));
    } else if (this.snapshotDueAt === null) {
      this.snapshotDueAt = this.lastSnapshotAt + SCREEN_SNAPSHOT_INTERVAL_MS;
      this.schedule();
    }
  }

  dispose(): void {
    this.closed = true;
    this.clearTimer();
  }

  private takeSnapshot(now: number): DetectorEvent[] {
    this.lastSnapshotAt = now;
    return this.detector.onScreen(this.screen(), now);
  }

  /** One step of the detector: its events and changed status go to the main thread. */
  private run(step: () => DetectorEvent[]): void {
    if (this.closed) return;
    let events: DetectorEvent[];
    try {
      events = step();
    } catch (err) {
      this.send({ error: (err as Error).stack ?? String(err) });
      return;
    }
    // Events, then the status after them: the main thread handles them in this order, as a
    // detector of its own would have had them.
    if (events.length > 0) this.send({ events });
    this.sendStatus();
    this.schedule();
  }

  private sendStatus(): void {
    const d = this.detector;
    const turn = d.currentTurn;
    const startedAt = turn?.startedAt ?? null;
    const status: DetectorStatus = {
      turnOpen: d.turnOpen,
      startedAt,
      // Worked out only for a new turn (the input is unwrapped from what was typed).
      input: startedAt === this.sent?.startedAt ? this.sent.input : (turn?.input ?? ''),
      submits: d.needsScreen ? d.submits : null,
      loads: d.loads,
      inputLine: d.inputLine,
      interruptArmed: d.interruptArmed,
    };
    if (sameStatus(this.sent, status)) return;
    this.sent = status;
    this.send({ status });
  }

  /**
   * Arms the one timer at the earliest of the detector's deadline and a pending rendering. A
   * later deadline keeps the armed timer (it fires early, ticks harmlessly, re-arms): output
   * chunks then cost no timer churn.
   */
  private schedule(): void {
    if (this.closed) return;
    let at = this.detector.nextDeadline();
    if (this.snapshotDueAt !== null && (at === null || this.snapshotDueAt < at))
      at = this.snapshotDueAt;
    if (at === null) return;
    if (this.timerAt !== null && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
  }

  private fire(): void {
    this.timer = null;
    this.timerAt = null;
    const now = Date.now();
    this.run(() => {
      const events: DetectorEvent[] = [];
      if (this.snapshotDueAt !== null && now >= this.snapshotDueAt) {
        this.snapshotDueAt = null;
        events.push(...this.takeSnapshot(now));
      }
      events.push(...this.detector.tick(now));
      return events;
    });
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = null;
  }
}
