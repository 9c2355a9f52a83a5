// The turn detectors of line-preset sessions as the detector worker runs them, without the
// thread: the worker binds this host to its port, and tests drive the same host directly, so
// no test re-implements what the worker does. Messages arrive in order per session (output and
// input share one port), and each session has one timer at the detector's next deadline.
import { TurnDetector, type DetectorEvent } from '@clippy/turns';
import { OutputRing } from './output-ring.js';
import type { WorkerRequest, WorkerReply } from './worker-detector.js';

/** What the host needs of a detector: the engine's TurnDetector (tests may observe it). */
export type HostedDetector = Pick<
  TurnDetector,
  'onOutput' | 'onInput' | 'tick' | 'resize' | 'nextDeadline'
> &
  Partial<Pick<TurnDetector, 'partialText'>>;

/** Builds a session's detector from its `open` request. */
export type DetectorFactory = (open: Extract<WorkerRequest, { op: 'open' }>) => HostedDetector;

const engineDetector: DetectorFactory = (m) =>
  new TurnDetector({
    preset: m.preset,
    maxTurnBytes: m.maxTurnBytes,
    ...(m.cols ? { cols: m.cols } : {}),
  });

interface Entry {
  detector: HostedDetector;
  /** The session's shared output ring, once it had a large batch. */
  ring: OutputRing | null;
  timer: NodeJS.Timeout | null;
  timerAt: number | null;
}

/** Runs the detectors of many sessions from their requests; replies go to `reply`. */
export class DetectorHost {
  private readonly sessions = new Map<number, Entry>();

  constructor(
    private readonly reply: (message: WorkerReply) => void,
    private readonly createDetector: DetectorFactory = engineDetector,
  ) {}

  handle(m: WorkerRequest): void {
    if (m.op === 'batch') {
      for (const item of m.items) this.handle(item);
      return;
    }
    if (m.op === 'open') {
      this.sessions.set(m.id, {
        detector: this.createDetector(m),
        ring: null,
        timer: null,
        timerAt: null,
      });
      return;
    }
    const entry = this.sessions.get(m.id);
    if (!entry) return;
    switch (m.op) {
      case 'close':
        if (entry.timer) clearTimeout(entry.timer);
        this.sessions.delete(m.id);
        return;
      case 'ring':
        entry.ring = OutputRing.attach(m.ring);
        return;
      case 'ring-out': {
        // Read in place: the detector copies what it keeps (turn content) and decodes the rest,
        // so no view outlives the step; the space is freed right after.
        const ring = entry.ring!;
        const views = ring.views(m.span);
        this.run(m.id, entry, () => views.flatMap((v) => entry.detector.onOutput(v, m.now)));
        ring.release(m.span);
        return;
      }
      case 'out':
        this.run(m.id, entry, () => entry.detector.onOutput(m.data, m.now));
        return;
      case 'in':
        this.run(m.id, entry, () => entry.detector.onInput(m.data, m.now));
        return;
      case 'resize':
        entry.detector.resize(m.cols);
        return;
      case 'partial':
        this.reply({
          id: m.id,
          partial: { req: m.req, text: entry.detector.partialText?.() ?? null },
        });
        return;
    }
  }

  /** Stops every session's timer (the host's only resource). */
  dispose(): void {
    for (const entry of this.sessions.values()) if (entry.timer) clearTimeout(entry.timer);
    this.sessions.clear();
  }

  private run(id: number, entry: Entry, step: () => DetectorEvent[]): void {
    let events: DetectorEvent[];
    try {
      events = step();
    } catch (err) {
      this.reply({ id, error: (err as Error).stack ?? String(err) });
      return;
    }
    if (events.length > 0) this.reply({ id, events });
    this.schedule(id, entry);
  }

  /** One timer per session at the detector's deadline; a later deadline keeps the armed timer. */
  private schedule(id: number, entry: Entry): void {
    const at = entry.detector.nextDeadline();
    if (at === null || (entry.timerAt !== null && entry.timerAt <= at)) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timerAt = at;
    entry.timer = setTimeout(
      () => {
        entry.timer = null;
        entry.timerAt = null;
        if (this.sessions.get(id) === entry)
          this.run(id, entry, () => entry.detector.tick(Date.now()));
      },
      Math.max(0, at - Date.now()),
    );
  }
}
