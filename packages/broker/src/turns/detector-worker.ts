// The turn detectors of line-preset sessions, run off the broker's main thread: line detection
// reads every output byte (ANSI stripping, line splitting, prompt matching), and on the main
// thread that work would slow the forwarding of output to clients. Messages arrive in order per
// session (output and input share this port), and each session has one timer at the detector's
// next deadline, here as on the main thread.
import { parentPort } from 'node:worker_threads';
import { TurnDetector, type DetectorEvent } from '@clippy/turns';
import { OutputRing } from './output-ring.js';
import type { WorkerRequest, WorkerReply } from './remote-detector.js';

interface Entry {
  detector: TurnDetector;
  /** The session's shared output ring, once it had a large batch. */
  ring: OutputRing | null;
  timer: NodeJS.Timeout | null;
  timerAt: number | null;
}

const sessions = new Map<number, Entry>();
const port = parentPort!;

port.on('message', handle);

function handle(m: WorkerRequest): void {
  if (m.op === 'batch') {
    for (const item of m.items) handle(item);
    return;
  }
  if (m.op === 'open') {
    sessions.set(m.id, {
      detector: new TurnDetector({
        preset: m.preset,
        maxTurnBytes: m.maxTurnBytes,
        ...(m.cols ? { cols: m.cols } : {}),
      }),
      ring: null,
      timer: null,
      timerAt: null,
    });
    return;
  }
  const entry = sessions.get(m.id);
  if (!entry) return;
  if (m.op === 'close') {
    if (entry.timer) clearTimeout(entry.timer);
    sessions.delete(m.id);
    return;
  }
  switch (m.op) {
    case 'ring':
      entry.ring = OutputRing.attach(m.ring);
      return;
    case 'ring-out': {
      // Read in place: the detector copies what it keeps (turn content) and decodes the rest,
      // so no view outlives the step; the space is freed right after.
      const ring = entry.ring!;
      const views = ring.views(m.span);
      run(m.id, entry, () => views.flatMap((v) => entry.detector.onOutput(v, m.now)));
      ring.release(m.span);
      return;
    }
    case 'out':
      run(m.id, entry, () => entry.detector.onOutput(m.data, m.now));
      return;
    case 'in':
      run(m.id, entry, () => entry.detector.onInput(m.data, m.now));
      return;
    case 'resize':
      entry.detector.resize(m.cols);
      return;
  }
}

function run(id: number, entry: Entry, step: () => DetectorEvent[]): void {
  let events: DetectorEvent[];
  try {
    events = step();
  } catch (err) {
    port.postMessage({ id, error: (err as Error).stack ?? String(err) } satisfies WorkerReply);
    return;
  }
  if (events.length > 0) port.postMessage({ id, events } satisfies WorkerReply);
  schedule(id, entry);
}

/** One timer per session at the detector's deadline; a later deadline keeps the armed timer. */
function schedule(id: number, entry: Entry): void {
  const at = entry.detector.nextDeadline();
  if (at === null || (entry.timerAt !== null && entry.timerAt <= at)) return;
  if (entry.timer) clearTimeout(entry.timer);
  entry.timerAt = at;
  entry.timer = setTimeout(
    () => {
      entry.timer = null;
      entry.timerAt = null;
      if (sessions.get(id) === entry) run(id, entry, () => entry.detector.tick(Date.now()));
    },
    Math.max(0, at - Date.now()),
  );
}
