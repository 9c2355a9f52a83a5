import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '@clippy/testkit/until';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { DETECTOR_HOLD_BYTES, DETECTOR_STALL_MS } from '../constants.js';
import { DetectorHost } from './detector-host.js';
import {
  WorkerDetector,
  WORKER_EXITED_REASON,
  type DetectorPort,
  type WorkerRequest,
} from './worker-detector.js';

/**
 * The detector worker without its thread: records requests and, on `consume`, hands them to a
 * real DetectorHost (the worker's code), whose detectors record the output they are given.
 */
class FakeWorker implements DetectorPort {
  readonly requests: WorkerRequest[] = [];
  /** Output bytes as the worker's detectors received them, in order. */
  private received: Buffer[] = [];
  private taken = 0;
  private readonly host = new DetectorHost(
    () => {},
    () => ({
      onOutput: (data: Uint8Array) => {
        this.received.push(Buffer.from(data));
        return [];
      },
      onInput: () => [],
      tick: () => [],
      resize: () => {},
      nextDeadline: () => null,
    }),
  );

  postMessage(m: WorkerRequest): void {
    this.posts++;
    if (m.op === 'batch') this.requests.push(...m.items);
    else this.requests.push(m);
  }

  /** Messages posted (a batch counts once: one wake-up of the worker). */
  posts = 0;

  /** Handles every request posted so far, in order, as the worker does (frees the ring). */
  consume(): void {
    for (const m of this.requests.slice(this.taken)) this.host.handle(m);
    this.taken = this.requests.length;
  }

  get output(): Buffer {
    return Buffer.concat(this.received);
  }
}

const detectors: WorkerDetector[] = [];
afterEach(() => {
  for (const d of detectors.splice(0)) d.dispose();
});

function make(worker: FakeWorker, onBacklog = () => {}): WorkerDetector {
  const d = new WorkerDetector(BUILTIN_PRESETS.generic!, 1 << 20, () => {}, onBacklog, worker);
  detectors.push(d);
  return d;
}

const chunk = (n: number, seed: number) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i + seed) & 0xff));

describe('WorkerDetector', () => {
  /**
   * Runs `body` on fake timers: which of the input's short wait (a timer) and the echo's flush
   * (an immediate) runs first must not depend on how loaded the machine is.
   */
  function onFakeTimers(body: () => void): void {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'],
    });
    // A broker that has run a while: the fake clock starts at 0.
    vi.advanceTimersByTime(10_000);
    try {
      body();
    } finally {
      vi.useRealTimers();
    }
  }

  it('posts a keystroke and its echo in one message', () => {
    onFakeTimers(() => {
      const worker = new FakeWorker();
      const d = make(worker);
      const before = worker.posts;
      d.onInput(Buffer.from('a'), 1);
      // The echo is read before the input's short wait is over (as it is from a live program).
      d.onOutput(Buffer.from('a'), 2);
      vi.runAllTimers();
      expect(worker.posts - before).toBe(1);
      expect(worker.requests.slice(-2).map((m) => m.op)).toEqual(['in', 'out']);
    });
  });

  it('wakes no worker on a keystroke: output still waiting goes with the input and its echo, in one message', () => {
    onFakeTimers(() => {
      const worker = new FakeWorker();
      const d = make(worker);
      expect(worker.posts).toBe(1); // open
      d.onOutput(Buffer.from('previous echo'), 1);
      d.onInput(Buffer.from('b'), 2);
      expect(worker.posts).toBe(1);
      d.onOutput(Buffer.from('b'), 3);
      vi.runAllTimers();
      expect(worker.posts).toBe(2);
      expect(worker.requests.slice(1).map((m) => m.op)).toEqual(['out', 'in', 'out']);
      worker.consume();
      expect(worker.output.toString()).toBe('previous echob');
    });
  });

  it('posts a prompt at once as a copy, without a ring', async () => {
    const worker = new FakeWorker();
    make(worker).onOutput(Buffer.from('$ '), 1);
    await until(() => worker.requests.some((m) => m.op === 'out'));
    worker.consume();
    expect(worker.requests.map((m) => m.op)).toEqual(['open', 'out']);
    expect(worker.output.toString()).toBe('$ ');
  });

  it('holds the PTY when the worker falls far behind, resumes when it catches up, loses no byte', async () => {
    const worker = new FakeWorker();
    let changes = 0;
    const d = make(worker, () => changes++);
    const fed: Buffer[] = [];
    let seed = 0;
    while (!d.overloaded) {
      const c = chunk(4096, seed++);
      fed.push(c);
      d.onOutput(c, 1);
      expect(fed.length * 4096).toBeLessThan(2 * DETECTOR_HOLD_BYTES);
    }
    expect(changes).toBe(1);
    expect(fed.length * 4096).toBeGreaterThan(DETECTOR_HOLD_BYTES);
    // The worker catches up: the waiting output is written to the ring as space frees.
    await until(() => {
      worker.consume();
      return !d.overloaded;
    }, 'the detector caught up');
    expect(changes).toBe(2);
    await until(() => {
      worker.consume();
      return worker.output.length === fed.length * 4096;
    });
    expect(worker.output.equals(Buffer.concat(fed))).toBe(true);
  });

  it('sends input after all the output before it, even past a full ring', async () => {
    const worker = new FakeWorker();
    const d = make(worker);
    const fed: Buffer[] = [];
    for (let i = 0; i < 400; i++) {
      const c = chunk(4096, i);
      fed.push(c);
      d.onOutput(c, 1);
    }
    d.onInput(Buffer.from('\r'), 2);
    await until(() => worker.requests.some((m) => m.op === 'in'));
    const ops = worker.requests.map((m) => m.op);
    expect(ops.at(-1)).toBe('in');
    // Everything before the input was posted before it: through the ring, then as a copy.
    worker.consume();
    expect(worker.output.equals(Buffer.concat(fed))).toBe(true);
    expect(d.overloaded).toBe(false);
  });

  it('gives up detection, not the output, when the worker takes nothing for a long time', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const worker = new FakeWorker();
      const errors: string[] = [];
      let changes = 0;
      const d = new WorkerDetector(
        BUILTIN_PRESETS.generic!,
        1 << 20,
        (r) => void ('stopped' in r && errors.push(r.stopped)),
        () => changes++,
        worker,
      );
      detectors.push(d);
      let seed = 0;
      while (!d.overloaded) d.onOutput(chunk(4096, seed++), 1);
      // Some progress: the hold stays.
      vi.advanceTimersByTime(DETECTOR_STALL_MS / 2);
      worker.consume();
      vi.advanceTimersByTime(DETECTOR_STALL_MS / 2 + 1);
      expect(errors).toEqual([]);
      // Then none at all for a whole interval: detection is given up and the PTY released.
      vi.advanceTimersByTime(2 * DETECTOR_STALL_MS + 1);
      expect(d.overloaded).toBe(false);
      expect(changes).toBe(2);
      expect(errors).toEqual([
        `turn detection stopped: the detector took none of this session's output for ${DETECTOR_STALL_MS} ms`,
      ]);
      d.onOutput(chunk(1 << 20, 1), 2);
      expect(d.overloaded).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('releases the PTY when the worker dies, and says so', () => {
    const worker = new FakeWorker();
    let changes = 0;
    const stopped: string[] = [];
    const d = new WorkerDetector(
      BUILTIN_PRESETS.generic!,
      1 << 20,
      (r) => void ('stopped' in r && stopped.push(r.stopped)),
      () => changes++,
      worker,
    );
    detectors.push(d);
    let seed = 0;
    while (!d.overloaded) d.onOutput(chunk(4096, seed++), 1);
    d.abandon();
    expect(d.overloaded).toBe(false);
    expect(changes).toBe(2);
    expect(stopped).toEqual([WORKER_EXITED_REASON]);
  });
});
