import { describe, expect, it } from 'vitest';
import { OutputRing } from './output-ring.js';

const bytes = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);

describe('OutputRing', () => {
  it('hands the consumer exactly what was written, in order, across the wrap', () => {
    const producer = OutputRing.create(100);
    const consumer = OutputRing.attach(producer.shared);
    let seed = 1;
    for (let round = 0; round < 50; round++) {
      const a = bytes(13 + (round % 20), seed++);
      const b = bytes(round % 9, seed++);
      const span = producer.write([a, b], a.length + b.length)!;
      expect(span).not.toBeNull();
      expect(Array.from(consumer.take(span))).toEqual([...a, ...b]);
      expect(producer.used).toBe(0);
    }
  });

  it('refuses a write that does not fit until the consumer frees space', () => {
    const producer = OutputRing.create(64);
    const consumer = OutputRing.attach(producer.shared);
    const first = producer.write([bytes(40, 1)], 40)!;
    expect(producer.write([bytes(30, 2)], 30)).toBeNull();
    expect(producer.used).toBe(40);
    consumer.take(first);
    const second = producer.write([bytes(30, 2)], 30)!;
    expect(Array.from(consumer.take(second))).toEqual(Array.from(bytes(30, 2)));
  });

  it('keeps what the consumer took after the ring is overwritten', () => {
    const producer = OutputRing.create(32);
    const consumer = OutputRing.attach(producer.shared);
    const kept = consumer.take(producer.write([bytes(32, 5)], 32)!);
    producer.write([bytes(32, 9)], 32);
    expect(Array.from(kept)).toEqual(Array.from(bytes(32, 5)));
  });
});
