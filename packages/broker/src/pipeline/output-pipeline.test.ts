import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '@clippy/testkit/until';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { PIPELINE_BACKLOG_HIGH, PIPELINE_STALL_MS } from '../constants.js';
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

/** A session's pipeline on a fake worker, with a line preset's detector. */
function make(worker: FakeWorker, client = new WorkerClient(() => worker)) {
  const seen = { flowChanges: 0, stopped: [] as string[], delivered: 0 };
  const pipeline = new OutputPipeline(
    80,
    24,
    {
      deliver: (_chunks, bytes) => (seen.delivered += bytes),
      flowChanged: () => seen.flowChanges++,
      answer: () => {},
    },
    client,
  );
  pipelines.push(pipeline);
  const listener: DetectorListener = {
    onReply: () => {},
    onStopped: (reason) => seen.stopped.push(reason),
  };
  const link = pipeline.detect(
    { preset: BUILTIN_PRESETS.bash!, maxTurnBytes: 1 << 20, cols: 80 },
    listener,
  );
  return { pipeline, link, seen };
}

const turnOfLoop = () => new Promise((r) => setImmediate(r));
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

  it('posts a keystroke and its echo in one message', async () => {
    const worker = new FakeWorker();
    const { pipeline, link } = make(worker);
    await turnOfLoop();
    const before = worker.messages.length;
    link.input(Buffer.from('a'), Date.now());
    // The echo is read before the input's short wait is over (as it is from a live program).
    pipeline.write(Buffer.from('a'));
    await turnOfLoop();
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['in', 'out']);
  });

  it('wakes no worker on a keystroke: output still waiting goes with the input and its echo, in one message', async () => {
    const worker = new FakeWorker();
    const { pipeline, link } = make(worker);
    await turnOfLoop();
    const before = worker.messages.length;
    pipeline.write(Buffer.from('previous echo'));
    link.input(Buffer.from('b'), Date.now());
    pipeline.write(Buffer.from('b'));
    await turnOfLoop();
    expect(worker.messages.length - before).toBe(1);
    expect(worker.messages.at(-1)!.steps.map((s) => s.op)).toEqual(['out', 'in', 'out']);
    expect(Buffer.concat(worker.output).toString()).toBe('previous echob');
  });

  it("joins a session's batches of one message into one step, each session's bytes in order", async () => {
    const worker = new FakeWorker();
    const client = new WorkerClient(() => worker);
    const a = make(worker, client);
    const b = make(worker, client);
    await turnOfLoop();
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
    a.link.input(Buffer.from('\r'), Date.now());
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

  it('sends input after all the output before it, even output still in the batch', async () => {
    const worker = new FakeWorker();
    const { pipeline, link } = make(worker);
    const fed: Buffer[] = [];
    // Large reads (a flood) wait in the batch for more.
    for (let i = 0; i < 40; i++) {
      const c = lines(i * 60, 60);
      fed.push(c);
      pipeline.write(c);
    }
    link.input(Buffer.from('\r'), Date.now());
    await until(() => worker.steps.some((s) => s.op === 'in'));
    const ops = worker.steps.map((s) => s.op).filter((op) => op === 'out' || op === 'in');
    expect(ops.at(-1)).toBe('in');
    expect(Buffer.concat(worker.output).equals(Buffer.concat(fed))).toBe(true);
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
