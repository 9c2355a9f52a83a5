import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '@clippy/testkit/until';
import { BUILTIN_PRESETS } from '@clippy/turns';
import {
  ECHO_HOLD_MS,
  INPUT_WORKER_DELAY_MS,
  PIPELINE_BACKLOG_HIGH,
  PIPELINE_POST_INTERVAL_MS,
  PIPELINE_STALL_MS,
} from '../constants.js';
import type { FromWorker, Step, ToWorker } from './messages.js';
import { OutputPipeline, stalledReason, type DetectorListener } from './output-pipeline.js';
import { WorkerClient, type WorkerPort } from './worker-client.js';
import { PipelineWorker } from './worker/pipeline-worker.js';

/**
 * The pipeline worker without its thread: records what is posted and, on `consume`, hands it to
 * a real PipelineWorker (the worker's code), whose replies come back as the thread's would.
 */
class FakeWorker implements WorkerPort {
  readonly messages: ToWorker[] = [];
  /** Output bytes in the order the worker got them. */
  readonly output: Buffer[] = [];
  private taken = 0;
  private onMessage: ((m: FromWorker) => void) | null = null;
  private onExit: (() => void) | null = null;
  private readonly work = new PipelineWorker((m) => this.onMessage?.(m));

  postMessage(message: ToWorker): void {
    this.messages.push(message);
    for (const s of message.steps)
      if (s.op === 'out') this.output.push(Buffer.from(message.data[s.buf]!, s.at, s.length));
  }

  on(event: 'message' | 'error' | 'exit', listener: (arg: never) => void): this {
    if (event === 'message') this.onMessage = listener as (m: FromWorker) => void;
    if (event === 'exit') this.onExit = listener as () => void;
    return this;
  }

  unref(): void {}

  terminate(): Promise<number> {
    this.work.dispose();
    return Promise.resolve(0);
  }

  /** The worker takes everything posted so far. */
  consume(): void {
    for (const m of this.messages.slice(this.taken)) this.work.handle(m);
    this.taken = this.messages.length;
  }

  /** The thread died. */
  die(): void {
    this.work.dispose();
    this.onExit?.();
  }

  /** The steps of every message posted, in order. */
  get steps(): Step[] {
    return this.messages.flatMap((m) => m.steps);
  }
}

const pipelines: OutputPipeline[] = [];
afterEach(() => {
  for (const p of pipelines.splice(0)) p.dispose();
  vi.useRealTimers();
});

/**
 * A session's pipeline on a fake worker, with a line preset's detector. `type` writes input as
 * the session's turn bookkeeping does: kept until the pipeline says to take it, then given to
 * the detector. `seen.order` tells deliveries to the clients and input taken apart, in order.
 */
function make(worker: FakeWorker, client = new WorkerClient(() => worker)) {
  const seen = { flowChanges: 0, stopped: [] as string[], delivered: 0, order: [] as string[] };
  const pipeline = new OutputPipeline(
    80,
    24,
    {
      deliver: (chunks, bytes) => {
        seen.delivered += bytes;
        seen.order.push(`delivered ${Buffer.concat(chunks).toString()}`);
      },
      flowChanged: () => seen.flowChanges++,
      answer: () => {},
    },
    client,
  );
  pipelines.push(pipeline);
  const waiting: Buffer[] = [];
  const listener: DetectorListener = {
    onReply: () => {},
    onStopped: (reason) => seen.stopped.push(reason),
    takeInput: () => {
      for (const data of waiting.splice(0)) {
        seen.order.push(`took ${data.toString()}`);
        link.input(data, Date.now());
      }
    },
  };
  const link = pipeline.detect(
    { preset: BUILTIN_PRESETS.bash!, maxTurnBytes: 1 << 20, cols: 80 },
    listener,
  );
  const type = (text: string) => {
    waiting.push(Buffer.from(text));
    link.inputWritten();
  };
  return { pipeline, link, seen, type };
}

const turnOfLoop = () => new Promise((r) => setImmediate(r));

/**
 * On fake timers (the clock too): a session's pipeline whose output, written right after the
 * opening message, waits out the flood's pace, 1 ms of it left; `before`: messages posted then.
 */
function outputWaitingOutItsPace() {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date', 'performance'],
  });
  const worker = new FakeWorker();
  const session = make(worker);
  vi.advanceTimersByTime(0);
  const before = worker.messages.length;
  session.pipeline.write(Buffer.from('$ '));
  vi.advanceTimersByTime(PIPELINE_POST_INTERVAL_MS - 1);
  expect(worker.messages.length).toBe(before);
  return { worker, before, ...session };
}

/** Two sessions' pipelines on one worker client (one fake worker), once their opening went. */
async function twoSessions() {
  const worker = new FakeWorker();
  const client = new WorkerClient(() => worker);
  const a = make(worker, client);
  const b = make(worker, client);
  await turnOfLoop();
  return { worker, a, b };
}
const lines = (from: number, n: number) =>
  Buffer.from(
    Array.from({ length: n }, (_, i) => `line ${from + i} ${'x'.repeat(60)}\r\n`).join(''),
  );

describe('OutputPipeline', () => {
  it('gives clients each batch before the worker, and the worker the batches of a moment in one message', async () => {
    const worker = new FakeWorker();
    const { pipeline, seen } = make(worker);
    await turnOfLoop();
    const before = worker.messages.length;
    pipeline.write(Buffer.from('$ '));
    pipeline.write(Buffer.from('more'));
    expect(seen.delivered).toBe(6);
    expect(worker.messages.length).toBe(before);
    await until(() => worker.messages.length > before);
    await turnOfLoop();
    expect(worker.messages.length).toBe(before + 1);
    expect(Buffer.concat(worker.output).toString()).toBe('$ more');
  });

  it('posts a keystroke and its echo in one message, after the clients had the echo', async () => {
    const worker = new FakeWorker();
    const { pipeline, seen, type } = make(worker);
    await turnOfLoop();
    const before = worker.messages.length;
    const typedAt = performance.now();
    type('a');
    // The keystroke's bookkeeping waits: nothing is taken before its echo.
    expect(seen.order).toEqual([]);
    // The echo is read before the input's short wait is over (as it is from a live program).
    pipeline.write(Buffer.from('a'));
    expect(seen.order).toEqual(['delivered a', 'took a']);
    // The worker wakes once the terminal had its time to draw the echo.
    await turnOfLoop();
    expect(worker.messages.length).toBe(before);
    await until(() => worker.messages.length > before);
    expect(performance.now() - typedAt).toBeGreaterThanOrEqual(INPUT_WORKER_DELAY_MS - 0.5);
    await turnOfLoop();
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['in', 'out']);
  });

  it("posts the keys typed within a keystroke's wait in one message, each with its echo", () => {
    vi.useFakeTimers({
      toFake: [
        'setTimeout',
        'clearTimeout',
        'setImmediate',
        'clearImmediate',
        'Date',
        'performance',
      ],
    });
    const worker = new FakeWorker();
    const { pipeline, seen, type } = make(worker);
    // The session's opening message went, and the pace after it is over.
    vi.advanceTimersByTime(PIPELINE_POST_INTERVAL_MS);
    const before = worker.messages.length;
    // A quick typist (or a held key): a key every 3 ms, each echoed at once.
    const keys = ['a', 'b', 'c', 'd'];
    for (const key of keys) {
      type(key);
      pipeline.write(Buffer.from(key));
      vi.advanceTimersByTime(3);
    }
    // The clients had every echo at once; the worker has none of them yet.
    expect(seen.order).toEqual(keys.flatMap((k) => [`delivered ${k}`, `took ${k}`]));
    expect(worker.messages.length).toBe(before);
    vi.advanceTimersByTime(INPUT_WORKER_DELAY_MS - 3 * keys.length);
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(
      keys.flatMap(() => ['in', 'out']),
    );
    expect(Buffer.concat(worker.output).toString()).toBe('abcd');
  });

  it("takes input that causes no output when the keystroke's wait is over", async () => {
    const worker = new FakeWorker();
    const { seen, type } = make(worker);
    await turnOfLoop();
    const typedAt = performance.now();
    type('\x1b');
    await until(() => worker.steps.some((s) => s.op === 'in'));
    expect(performance.now() - typedAt).toBeGreaterThanOrEqual(INPUT_WORKER_DELAY_MS - 0.5);
    expect(seen.order).toEqual(['took \x1b']);
  });

  it("makes no timer on a keystroke's way: one timer, re-armed, takes each to the worker", async () => {
    const worker = new FakeWorker();
    const { pipeline, type } = make(worker);
    await turnOfLoop();
    const made: number[] = [];
    for (const key of ['a', 'b', 'c']) {
      // Typed after the flood's pace is over: only the keystroke's own wait holds its message.
      await new Promise((r) => setTimeout(r, PIPELINE_POST_INTERVAL_MS + 1));
      const before = worker.messages.length;
      const timers = vi.spyOn(globalThis, 'setTimeout');
      type(key);
      pipeline.write(Buffer.from(key));
      made.push(timers.mock.calls.length);
      timers.mockRestore();
      await until(() => worker.messages.length > before);
    }
    // The first keystroke makes the one timer; the others re-arm it.
    expect(made.slice(1)).toEqual([0, 0]);
    expect(worker.messages.slice(-3).map((m) => m.steps.map((s) => s.op))).toEqual([
      ['in', 'out'],
      ['in', 'out'],
      ['in', 'out'],
    ]);
    expect(Buffer.concat(worker.output).toString()).toBe('abc');
  });

  it("takes every session's waiting input with the keystroke's message, echo or not", async () => {
    const { worker, a, b } = await twoSessions();
    const before = worker.messages.length;
    a.type('x');
    b.type('y');
    b.pipeline.write(Buffer.from('y'));
    await until(() => worker.messages.length > before);
    await turnOfLoop();
    expect(worker.messages.length - before).toBe(1);
    expect(a.seen.order).toEqual(['took x']);
    expect(b.seen.order).toEqual(['delivered y', 'took y']);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['in', 'out', 'in']);
  });

  it('takes waiting input before any other step of the session: a replay sees the keystroke', async () => {
    const worker = new FakeWorker();
    const { pipeline, type } = make(worker);
    await turnOfLoop();
    type('x');
    const replay = pipeline.snapshot();
    await until(() => worker.steps.some((s) => s.op === 'serialize'));
    const ops = worker.steps.map((s) => s.op);
    expect(ops.indexOf('in')).toBeGreaterThanOrEqual(0);
    expect(ops.indexOf('in')).toBeLessThan(ops.indexOf('serialize'));
    worker.consume();
    await replay;
    // The keystroke's wait was cut short by the request; the next keystroke waits its own.
    type('y');
    await until(() => worker.steps.filter((s) => s.op === 'in').length === 2, 'the next keystroke');
  });

  it('wakes no worker on a keystroke: output still waiting goes with the input and its echo, in one message', async () => {
    const worker = new FakeWorker();
    const { pipeline, type } = make(worker);
    await turnOfLoop();
    const before = worker.messages.length;
    pipeline.write(Buffer.from('previous echo'));
    type('b');
    pipeline.write(Buffer.from('b'));
    await until(() => worker.messages.length > before);
    await turnOfLoop();
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['out', 'in', 'out']);
    expect(Buffer.concat(worker.output).toString()).toBe('previous echob');
  });

  it("sends no message between a keystroke's write and its echo: one due then goes after the echo", async () => {
    const { worker, pipeline, seen, type, before } = outputWaitingOutItsPace();
    // The pace ends a moment after a keystroke's write, before its echo was read.
    type('a');
    vi.advanceTimersByTime(1);
    expect(worker.messages.length).toBe(before);
    pipeline.write(Buffer.from('a'));
    expect(worker.messages.length).toBe(before);
    vi.advanceTimersByTime(0);
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['out', 'in', 'out']);
    expect(seen.order).toEqual(['delivered $ ', 'delivered a', 'took a']);
  });

  it('sends a message that waits for an echo ECHO_HOLD_MS later when none comes, and holds none for older keys', async () => {
    const { worker, seen, type, before } = outputWaitingOutItsPace();
    // A key that shows nothing (a password's): the message waits for it no longer than this.
    type('s');
    vi.advanceTimersByTime(1);
    expect(worker.messages.length).toBe(before);
    vi.advanceTimersByTime(ECHO_HOLD_MS);
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['out', 'in']);
    // A later key that shows nothing goes when its own wait is over, not held past it.
    vi.advanceTimersByTime(PIPELINE_POST_INTERVAL_MS);
    type('t');
    vi.advanceTimersByTime(INPUT_WORKER_DELAY_MS);
    expect(worker.messages.length - before).toBe(2);
    expect(seen.order).toEqual(['delivered $ ', 'took s', 'took t']);
  });

  it("joins a session's batches of one message into one step, each session's bytes in order", async () => {
    const { worker, a, b } = await twoSessions();
    const before = worker.messages.length;
    const fedA: Buffer[] = [];
    const fedB: Buffer[] = [];
    // Two sessions flooding side by side: their batches come interleaved.
    for (let i = 0; i < 10; i++) {
      fedA.push(lines(i * 20, 20));
      a.pipeline.write(fedA.at(-1)!);
      a.pipeline.flush();
      fedB.push(lines(1000 + i * 20, 20));
      b.pipeline.write(fedB.at(-1)!);
      b.pipeline.flush();
    }
    // Input ends a session's step: output after it is a step of its own.
    a.type('\r');
    const after = lines(5000, 20);
    a.pipeline.write(after);
    a.pipeline.flush();
    await until(() => worker.messages.length > before);
    await turnOfLoop();
    expect(worker.messages.length - before).toBe(1);
    const message = worker.messages.at(-1)!;
    expect(message.steps.map((s) => s.op)).toEqual(['out', 'out', 'in', 'out']);
    const bytesOf = (s: Step) =>
      s.op === 'out' || s.op === 'in' ? Buffer.from(message.data[s.buf]!, s.at, s.length) : null;
    const [outA, outB, input, outA2] = message.steps;
    expect(outA!.id).toBe(input!.id);
    expect(outA2!.id).toBe(input!.id);
    expect(outB!.id).not.toBe(outA!.id);
    // Each session's bytes in a buffer of their own: what one keeps holds no other's alive.
    expect(outB!.op === 'out' && outA!.op === 'out' && outB!.buf !== outA!.buf).toBe(true);
    expect(message.data.map((b) => b.byteLength).sort((x, y) => x - y)).toEqual(
      [Buffer.concat(fedB).length, Buffer.concat(fedA).length + 1 + after.length].sort(
        (x, y) => x - y,
      ),
    );
    expect(bytesOf(outA!)!.equals(Buffer.concat(fedA))).toBe(true);
    expect(bytesOf(outB!)!.equals(Buffer.concat(fedB))).toBe(true);
    expect(bytesOf(input!)!.toString()).toBe('\r');
    expect(bytesOf(outA2!)!.equals(after)).toBe(true);
  });

  it('sends input after all the output before it, even output still in the batch, and before the output after it', async () => {
    const worker = new FakeWorker();
    const { pipeline, type } = make(worker);
    const fed: Buffer[] = [];
    // Large reads (a flood) wait in the batch for more.
    for (let i = 0; i < 40; i++) {
      const c = lines(i * 60, 60);
      fed.push(c);
      pipeline.write(c);
    }
    type('\r');
    // A flood's read after the keystroke waits in the batch longer than the input waits.
    const later = lines(9000, 60);
    pipeline.write(later);
    await until(
      () => Buffer.concat(worker.output).length === Buffer.concat([...fed, later]).length,
    );
    const ops = worker.steps.map((s) => s.op).filter((op) => op === 'out' || op === 'in');
    const input = ops.indexOf('in');
    expect(input).toBeGreaterThan(0);
    const outBefore = worker.steps
      .filter((s, i) => s.op === 'out' && i < worker.steps.findIndex((t) => t.op === 'in'))
      .reduce((n, s) => n + (s.op === 'out' ? s.length : 0), 0);
    expect(outBefore).toBe(Buffer.concat(fed).length);
    expect(Buffer.concat(worker.output).equals(Buffer.concat([...fed, later]))).toBe(true);
  });

  it('holds the PTY when the worker falls far behind, resumes when it catches up, loses no byte', async () => {
    const worker = new FakeWorker();
    const { pipeline, seen } = make(worker);
    const fed: Buffer[] = [];
    let n = 0;
    let bytes = 0;
    while (!pipeline.overloaded) {
      const c = lines(n, 60);
      n += 60;
      fed.push(c);
      bytes += c.length;
      pipeline.write(c);
      pipeline.flush();
      expect(bytes).toBeLessThan(2 * PIPELINE_BACKLOG_HIGH);
    }
    expect(seen.flowChanges).toBe(1);
    expect(bytes).toBeGreaterThan(PIPELINE_BACKLOG_HIGH);
    // The worker catches up and says so: the PTY may go on.
    await turnOfLoop();
    worker.consume();
    await until(() => !pipeline.overloaded, 'the hold ends', 20_000);
    expect(seen.flowChanges).toBe(2);
    expect(Buffer.concat(worker.output).equals(Buffer.concat(fed))).toBe(true);
    expect(seen.stopped).toEqual([]);
  });

  it('gives up detection and the screen, not the output, when the worker takes nothing for a long time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    const worker = new FakeWorker();
    const { pipeline, seen } = make(worker);
    let n = 0;
    while (!pipeline.overloaded) {
      pipeline.write(lines(n, 60));
      pipeline.flush();
      n += 60;
    }
    expect(seen.flowChanges).toBe(1);
    vi.advanceTimersByTime(PIPELINE_STALL_MS + 1);
    expect(seen.stopped).toEqual([stalledReason(PIPELINE_STALL_MS)]);
    // The PTY is released, and later output is no longer held for the worker.
    expect(pipeline.overloaded).toBe(false);
    expect(seen.flowChanges).toBe(2);
    const delivered = seen.delivered;
    while (seen.delivered < delivered + 2 * PIPELINE_BACKLOG_HIGH) {
      pipeline.write(lines(n, 60));
      pipeline.flush();
      expect(pipeline.overloaded).toBe(false);
    }
    // A replay now is empty rather than never.
    expect(await pipeline.snapshot()).toBe('');
  });

  it('releases the PTY when the worker dies, and says so', async () => {
    const worker = new FakeWorker();
    const { pipeline, seen } = make(worker);
    let n = 0;
    while (!pipeline.overloaded) {
      pipeline.write(lines(n, 60));
      pipeline.flush();
      n += 60;
    }
    const replay = pipeline.snapshot();
    worker.die();
    expect(pipeline.overloaded).toBe(false);
    expect(seen.flowChanges).toBe(2);
    expect(seen.stopped).toEqual(['turn detection stopped: the pipeline worker exited']);
    expect(await replay).toBe('');
  });
});
