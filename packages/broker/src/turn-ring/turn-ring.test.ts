import { describe, expect, it } from 'vitest';
import { TurnRing, type NewTurn } from './turn-ring.js';
import { relayEntryOf } from '../relay/relay-buffer.js';

const turn = (text: string, extra: Partial<NewTurn> = {}): NewTurn => ({
  content: Buffer.from(`\x1b[1m${text}\x1b[0m`),
  text,
  prompt: `say ${text}`,
  interrupted: false,
  startedAt: 1_000,
  endedAt: 1_250,
  ...extra,
});

describe('TurnRing', () => {
  it('numbers turns from 1 with IDs <session>:<seq> and the metadata of each', () => {
    const ring = new TurnRing('abc123', { depth: 32, maxTurnBytes: 1024 });
    const first = ring.add(turn('one'));
    const second = ring.add(turn('two', { interrupted: true }));
    expect(first.turn_id).toBe('abc123:1');
    expect(second.turn_id).toBe('abc123:2');
    expect(second).toMatchObject({
      session: 'abc123',
      seq: 2,
      timestamp: 1_250,
      byte_length: Buffer.byteLength('\x1b[1mtwo\x1b[0m'),
      interrupted: true,
      truncated: false,
      duration_ms: 250,
      prompt: 'say two',
      text: 'two',
    });
    expect(ring.count).toBe(2);
    expect(ring.latest()?.seq).toBe(2);
  });

  it('evicts the oldest beyond its depth and never reuses a sequence number', () => {
    const ring = new TurnRing('s', { depth: 3, maxTurnBytes: 1024 });
    for (let i = 1; i <= 5; i++) ring.add(turn(`t${i}`));
    expect(ring.size).toBe(3);
    expect(ring.count).toBe(5);
    expect(ring.get(1)).toBeUndefined();
    expect(ring.get(2)).toBeUndefined();
    expect(ring.get(3)?.text).toBe('t3');
    expect(ring.get(5)?.text).toBe('t5');
    expect(ring.get(6)).toBeUndefined();
    expect(ring.list().map((m) => m.seq)).toEqual([5, 4, 3]);
    expect(ring.list(2).map((m) => m.turn_id)).toEqual(['s:5', 's:4']);
    expect(ring.list()[0]).not.toHaveProperty('content');
    expect(ring.after(3)?.seq).toBe(4);
    expect(ring.after(5)).toBeUndefined();
  });

  it('cuts content above the cap and flags it truncated; content under the cap is exact', () => {
    const ring = new TurnRing('s', { depth: 4, maxTurnBytes: 10 });
    const big = ring.add({ ...turn('x'), content: Buffer.alloc(25, 0x41) });
    expect(big.byte_length).toBe(10);
    expect(big.truncated).toBe(true);
    const exact = ring.add({ ...turn('y'), content: Buffer.alloc(10, 0x42) });
    expect(exact.truncated).toBe(false);
    expect(Buffer.from(exact.content).equals(Buffer.alloc(10, 0x42))).toBe(true);
  });

  it('keeps its own copy of the content', () => {
    const ring = new TurnRing('s', { depth: 4, maxTurnBytes: 100 });
    const source = Buffer.from('hello');
    const stored = ring.add({ ...turn('h'), content: source });
    source.fill(0);
    expect(Buffer.from(stored.content).toString()).toBe('hello');
  });
});

describe('relayEntryOf', () => {
  it('copies the turn so the entry survives changes to the ring and to the stored bytes', () => {
    const ring = new TurnRing('s', { depth: 1, maxTurnBytes: 100 });
    const first = ring.add(turn('first'));
    const entry = relayEntryOf(first);
    ring.add(turn('second'));
    expect(ring.get(1)).toBeUndefined();
    (first.content as Uint8Array).fill(0);
    expect(entry).toMatchObject({ turnId: 's:1', text: 'first' });
    expect(entry.content.toString()).toBe('\x1b[1mfirst\x1b[0m');
  });
});
