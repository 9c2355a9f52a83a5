import { afterEach, describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import {
  childEnv,
  sleep,
  startTestBroker,
  waitUntil,
  type TestBroker,
} from './test-support/fixtures.js';
import type { RawClient } from './test-support/raw-client.js';
import { FLOW_HIGH_WATERMARK, PIPELINE_BACKLOG_HIGH } from './constants.js';
import { Attachment, OutputBatch, type FlowLimits, type FlowSink } from './flow-control.js';

let tb: TestBroker | null = null;
afterEach(async () => {
  await tb?.stop();
  tb = null;
});

/**
 * A fast producer: lines as fast as the shell can write them, from the Enter `startFlood` types
 * (clients attached before it: a flood under way makes an attach's replay slow to build, and
 * output held during the attach counts against the client's queue before the test's own step).
 */
const FLOOD =
  'read x; while :; do echo 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz; done';

async function spawnFlood(c: RawClient) {
  const r = await c.ok('spawn', {
    command: 'sh',
    args: ['-c', FLOOD],
    env: childEnv(),
    cwd: tmpdir(),
  });
  return r.session as string;
}

async function startFlood(c: RawClient, session: string) {
  await c.ok('input', { session, data: Buffer.from('\r') });
}

describe('flow control', () => {
  it('a stopped interactive client does not stall another attached client', async () => {
    tb = await startTestBroker({
      limits: { demoteGraceMs: 300, observerQueueLimit: 2 * 1024 * 1024 },
    });
    const stopped = await tb.client();
    const healthy = await tb.client();
    healthy.autoAck = true;
    healthy.dropOutput = true;
    const session = await spawnFlood(healthy);
    await stopped.ok('attach', { session, mode: 'interactive' });
    await healthy.ok('attach', { session, mode: 'interactive' });
    stopped.socket.pause(); // stops reading: never acks, its socket fills up
    const mark = stopped.messages.length;
    const before = healthy.received.get(session) ?? 0;
    await startFlood(healthy, session);
    const s = tb.broker.table.resolve(session)!;
    // The stopped client holds the PTY once a high watermark of its output is unacked, so the
    // flood reaches the healthy client beyond two watermarks only after the stopped one was
    // demoted (its grace, on a fake clock, is tested in "the demote grace" below); demoted, it
    // is detached once its queue passes the limit, while it is still stopped. A stall would hold
    // the healthy client there; a rate would fail on a loaded machine.
    await healthy.until(
      () =>
        s.clientCount === 1 &&
        (healthy.received.get(session) ?? 0) - before > 2 * FLOW_HIGH_WATERMARK + 1_000_000,
    );
    stopped.socket.resume();
    // Told after the output it was sent, and only now: not at its attach.
    const detached = await stopped.waitFor((m) => m.type === 'detached', 20_000, mark);
    expect(detached).toMatchObject({ session, reason: 'slow_consumer' });
    expect(String(detached.message)).toContain('behind');
    // The healthy client is still attached and served.
    const n = healthy.received.get(session) ?? 0;
    await healthy.until(() => (healthy.received.get(session) ?? 0) > n + 100_000);
  });

  it('an interactive client that acks holds the PTY and gets everything in order', async () => {
    tb = await startTestBroker();
    const c = await tb.client();
    c.autoAck = true;
    const r = await c.ok('spawn', {
      command: 'sh',
      // Starts on the Enter sent once attached (a 0.2 s sleep was once too short under load).
      args: ['-c', 'read x; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo "line $i"; done'],
      env: childEnv(),
      cwd: tmpdir(),
    });
    await c.ok('attach', { session: r.session, mode: 'interactive' });
    await c.ok('input', { session: r.session, data: Buffer.from('\r') });
    await c.waitFor((m) => m.type === 'exit', 20_000);
    const text = c.output(r.session as string).toString();
    expect(text).toContain('line 1\r\n');
    expect(text).toContain('line 20000\r\n');
    expect(text.split('\r\n').filter((l) => l.startsWith('line ')).length).toBe(20000);
  });

  it('drains the last output of a child that exits while its PTY is paused', async () => {
    tb = await startTestBroker({ limits: { demoteGraceMs: 60_000 } });
    const c = await tb.client(); // never acks: holds the PTY paused above the high watermark
    const r = await c.ok('spawn', {
      command: 'sh',
      // ~6 KB more than the high watermark: the rest fits in the kernel's PTY buffer, so the
      // child exits while the broker is not reading.
      // Starts on the Enter sent once attached, so every byte reaches the client.
      args: ['-c', 'read x; head -c 106000 /dev/zero | tr "\\0" b; printf END'],
      env: childEnv(),
      cwd: tmpdir(),
    });
    await c.ok('attach', { session: r.session, mode: 'interactive' });
    await c.ok('input', { session: r.session, data: Buffer.from('\r') });
    await c.waitFor((m) => m.type === 'exit', 20_000);
    // The Enter's echo (CR LF), the flood, END.
    expect(c.received.get(r.session as string)).toBe(2 + 106_003);
    expect(
      c
        .output(r.session as string)
        .toString()
        .endsWith('bEND'),
    ).toBe(true);
  });

  it('pauses the PTY while an interactive client is far behind, resumes when it acks', async () => {
    tb = await startTestBroker({ limits: { demoteGraceMs: 60_000 } });
    const c = await tb.client();
    const session = await spawnFlood(c);
    await c.ok('attach', { session, mode: 'interactive' });
    await startFlood(c, session);
    // No acks: the broker stops reading the PTY a little above the high watermark.
    await waitUntil(() => tb!.broker.table.resolve(session)!.outputBytes > FLOW_HIGH_WATERMARK);
    const stalled = tb.broker.table.resolve(session)!.outputBytes;
    // The absence of output cannot be awaited: unpaused, the flood writes megabytes in 500 ms.
    await sleep(500);
    expect(tb.broker.table.resolve(session)!.outputBytes - stalled).toBeLessThan(70_000);
    expect(stalled).toBeLessThan(FLOW_HIGH_WATERMARK + 300_000);
    c.autoAck = true;
    c.sendRaw({ type: 'ack', id: 0, session, bytes: c.received.get(session) ?? 0 });
    await waitUntil(
      () => tb!.broker.table.resolve(session)!.outputBytes > stalled + 2 * FLOW_HIGH_WATERMARK,
    );
  });

  it('paces a flood at the screen model: its backlog stays bounded and no byte is dropped', async () => {
    // 16 MB (four times the backlog bound) on one line: nothing of it can be dropped unparsed,
    // the screen model parses it all.
    tb = await startTestBroker();
    const c = await tb.client();
    await c.ok('subscribe', { events: ['session_exited'] });
    const r = await c.ok('spawn', {
      command: 'sh',
      args: ['-c', 'sleep 0.1; head -c 16000000 /dev/zero | tr "\\0" a; printf END'],
      env: childEnv(),
      cwd: tmpdir(),
    });
    const session = tb.broker.table.resolve(r.session as string)!;
    let maxBacklog = 0;
    const sampler = setInterval(
      () => (maxBacklog = Math.max(maxBacklog, session.output.backlog)),
      2,
    );
    try {
      await c.waitFor((m) => m.type === 'session_exited', 30_000);
    } finally {
      clearInterval(sampler);
    }
    expect(session.outputBytes).toBe(16_000_003);
    expect(maxBacklog).toBeLessThan(PIPELINE_BACKLOG_HIGH + 1024 * 1024);
    // The replay covers every byte: the model parsed the whole flood.
    expect(await session.output.snapshot()).toContain('aEND');
  });

  it('detaches an observer beyond its queue with slow_consumer; memory stays bounded', async () => {
    tb = await startTestBroker({ limits: { observerQueueLimit: 1024 * 1024 } });
    const observer = await tb.client();
    const control = await tb.client();
    const session = await spawnFlood(control);
    const rssBefore = process.memoryUsage.rss();
    await observer.ok('attach', { session, mode: 'observer' });
    observer.socket.pause();
    const mark = observer.messages.length;
    await startFlood(control, session);
    await waitUntil(() => tb!.broker.table.resolve(session)!.clientCount === 0, 20_000);
    observer.dropOutput = true;
    observer.socket.resume();
    const detached = await observer.waitFor((m) => m.type === 'detached', 20_000, mark);
    expect(detached).toMatchObject({ session, reason: 'slow_consumer' });
    // Clients print "detached from NAME: <message>": the message says why, and only that.
    expect(detached.message).toMatch(/^the client fell more than 1048576 bytes behind the output/);
    expect(detached.message).not.toMatch(/detached/);
    // The session kept running at full speed without anyone attached; the daemon's memory did not follow it.
    const produced = tb.broker.table.resolve(session)!.outputBytes;
    await waitUntil(
      () => tb!.broker.table.resolve(session)!.outputBytes > produced + 1_000_000,
      20_000,
    );
    expect(process.memoryUsage.rss() - rssBefore).toBeLessThan(150 * 1024 * 1024);
    expect((await control.ok('list_sessions')).status).toBe('ok');
  });
});

/** A sink that records what it was given; `buffered` is what its reader has not taken. */
function recordingSink(): FlowSink & { sent: number; buffered: number } {
  return {
    terminal: false,
    sent: 0,
    buffered: 0,
    sendOutput(batch) {
      this.sent += batch.bytes;
    },
    sendExit() {},
    sendNotice() {},
    get bufferedAmount() {
      return this.buffered;
    },
    release: () => Promise.resolve(),
    dispose() {},
  };
}

const LIMITS: FlowLimits = {
  highWatermark: 1_000,
  lowWatermark: 250,
  demoteGraceMs: 2_000,
  observerQueueLimit: 1_000_000,
};

function batch(bytes: number): OutputBatch {
  return new OutputBatch('s', [Buffer.alloc(bytes)], bytes);
}

/** An interactive attachment, flushed (past its attach), and what it told the session. */
function interactive() {
  const events: string[] = [];
  const a = new Attachment('interactive', recordingSink(), LIMITS, {
    onHoldChanged: () => events.push(a.holding ? 'hold' : 'release'),
    onSlowConsumer: () => events.push('slow'),
  });
  a.flushPending();
  return { a, events };
}

describe('the demote grace (an attachment on a fake clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an interactive client behind by a high watermark holds the PTY for the grace, then is demoted', () => {
    vi.useFakeTimers();
    const { a, events } = interactive();
    a.deliverOutput(batch(LIMITS.highWatermark));
    expect(a.holding).toBe(false); // at the watermark, not above it
    a.deliverOutput(batch(1));
    expect(events).toEqual(['hold']);
    vi.advanceTimersByTime(LIMITS.demoteGraceMs - 1);
    expect(a.holding).toBe(true);
    expect(a.demoted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(a.holding).toBe(false);
    expect(a.demoted).toBe(true);
    expect(events).toEqual(['hold', 'release']);
    // Demoted, it holds nothing however far behind it falls...
    a.deliverOutput(batch(10 * LIMITS.highWatermark));
    vi.advanceTimersByTime(10 * LIMITS.demoteGraceMs);
    expect(events).toEqual(['hold', 'release']);
    // ...until its acks bring it below the low watermark: then it is interactive again.
    a.ack(a.unacked - LIMITS.lowWatermark + 1);
    expect(a.demoted).toBe(false);
    a.deliverOutput(batch(LIMITS.highWatermark));
    expect(events).toEqual(['hold', 'release', 'hold']);
  });

  it('a client that acks below the low watermark within the grace is never demoted', () => {
    vi.useFakeTimers();
    const { a, events } = interactive();
    a.deliverOutput(batch(LIMITS.highWatermark + 1));
    vi.advanceTimersByTime(LIMITS.demoteGraceMs - 1);
    a.ack(a.unacked - LIMITS.lowWatermark); // at the low watermark: still holding
    expect(a.holding).toBe(true);
    a.ack(1);
    expect(events).toEqual(['hold', 'release']);
    vi.advanceTimersByTime(10 * LIMITS.demoteGraceMs);
    expect(a.demoted).toBe(false);
    expect(events).toEqual(['hold', 'release']);
  });

  it('an observer never holds the PTY; past its queue limit it is a slow consumer', () => {
    vi.useFakeTimers();
    const sink = recordingSink();
    const events: string[] = [];
    const a = new Attachment('observer', sink, LIMITS, {
      onHoldChanged: () => events.push('hold changed'),
      onSlowConsumer: () => events.push('slow'),
    });
    a.flushPending();
    a.deliverOutput(batch(100 * LIMITS.highWatermark));
    vi.advanceTimersByTime(10 * LIMITS.demoteGraceMs);
    expect(events).toEqual([]);
    sink.buffered = LIMITS.observerQueueLimit + 1;
    a.deliverOutput(batch(1));
    expect(events).toEqual(['slow']);
  });
});
