import { MessageChannel } from 'node:worker_threads';
import { resolvePreset, type DetectorEvent } from '@clippy/turns';
import { afterEach, describe, expect, it } from 'vitest';
import type { FromWorker, Step } from '../messages.js';
import { PipelineWorker } from './pipeline-worker.js';

const PROMPT = 'user@host:~$ ';
const enc = new TextEncoder();

/** One message of steps for session 1, each `out`/`in` step's bytes in one buffer. */
function message(steps: ({ op: 'out' | 'in'; text: string } | Step)[]): {
  steps: Step[];
  data: ArrayBuffer[];
} {
  const parts: Uint8Array[] = [];
  let at = 0;
  const out: Step[] = steps.map((s) => {
    if (!('text' in s)) return s;
    const bytes = enc.encode(s.text);
    parts.push(bytes);
    const step = { op: s.op, id: 1, buf: 0, at, length: bytes.length, now: Date.now() };
    at += bytes.length;
    return step;
  });
  const buf = new Uint8Array(at);
  let o = 0;
  for (const p of parts) {
    buf.set(p, o);
    o += p.length;
  }
  return { steps: out, data: [buf.buffer] };
}

describe('PipelineWorker: replies to the main thread', () => {
  const channels: MessageChannel[] = [];
  let worker: PipelineWorker | null = null;
  afterEach(() => {
    worker?.dispose();
    worker = null;
    for (const c of channels.splice(0)) {
      c.port1.close();
      c.port2.close();
    }
  });

  it("hands a turn's content over to the main thread instead of copying it, intact", async () => {
    const channel = new MessageChannel();
    channels.push(channel);
    const posted: { transfer: ArrayBuffer[]; turn: boolean }[] = [];
    worker = new PipelineWorker((m: FromWorker, transfer: ArrayBuffer[]) => {
      const turn = m.replies.some((r) => 'events' in r && r.events.some((e) => e.type === 'turn'));
      posted.push({ transfer, turn });
      channel.port1.postMessage(m, transfer);
    });
    const received: DetectorEvent[] = [];
    const waiters: { type: DetectorEvent['type']; resolve: () => void }[] = [];
    channel.port2.on('message', (m: FromWorker) => {
      for (const r of m.replies) if ('events' in r) received.push(...r.events);
      for (const w of waiters) if (received.some((e) => e.type === w.type)) w.resolve();
    });
    const event = (type: DetectorEvent['type']): Promise<void> =>
      new Promise((resolve) => waiters.push({ type, resolve }));
    const ready = event('ready');
    const gotTurn = event('turn');
    const answer = 'line of the answer\r\n'.repeat(500);
    const setup = { preset: resolvePreset('bash'), maxTurnBytes: 4 * 1024 * 1024, cols: 80 };
    worker.handle(
      message([
        { op: 'open', id: 1, cols: 80, rows: 24, scrollback: 100 },
        { op: 'detect', id: 1, setup },
        { op: 'out', text: PROMPT },
      ]),
    );
    // The first prompt makes the session ready; the next one ends the turn.
    await ready;
    worker.handle(
      message([
        { op: 'in', text: 'cat notes\r' },
        { op: 'out', text: `cat notes\r\n${answer}${PROMPT}` },
      ]),
    );
    await gotTurn;

    const turn = received.find((e) => e.type === 'turn');
    expect(turn).toMatchObject({ type: 'turn', input: 'cat notes' });
    if (turn?.type !== 'turn') throw new Error('no turn');
    expect(new TextDecoder().decode(turn.content)).toBe(answer);
    // Moved, not copied: the message that carried the turn listed its content for transfer.
    const carrier = posted.find((p) => p.turn);
    expect(carrier?.transfer).toHaveLength(1);
    expect(carrier?.transfer[0]!.byteLength).toBe(0); // detached here once sent
  });
});
