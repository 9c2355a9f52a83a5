import { describe, expect, it } from 'vitest';
import { seededRandom } from '@clippy/testkit/random';
import { BinaryHeap } from './binary-heap.js';

const drain = <T>(heap: BinaryHeap<T>): T[] => {
  const out: T[] = [];
  while (heap.size) out.push(heap.pop()!);
  return out;
};

describe('BinaryHeap', () => {
  it('pops the largest first with a "greater than" order, whatever the push order', () => {
    for (const seed of [1, 2, 3, 42]) {
      const r = seededRandom(seed);
      const xs = Array.from({ length: 200 }, () => Math.floor(r() * 50) - 10);
      const heap = new BinaryHeap<number>((a, b) => a > b);
      for (const x of xs) heap.push(x);
      expect(heap.size).toBe(xs.length);
      expect(drain(heap)).toEqual([...xs].sort((a, b) => b - a));
    }
  });

  it('keeps 0 and other falsy items', () => {
    const heap = new BinaryHeap<number>((a, b) => a < b);
    for (const x of [3, 0, 2, 0, 1]) heap.push(x);
    expect(drain(heap)).toEqual([0, 0, 1, 2, 3]);
  });

  it('breaks ties by what the order says, so equal priorities come out deterministically', () => {
    const items = [
      { p: 1, name: 'c' },
      { p: 2, name: 'b' },
      { p: 1, name: 'a' },
      { p: 2, name: 'a' },
    ];
    const heap = new BinaryHeap<(typeof items)[number]>(
      (x, y) => x.p > y.p || (x.p === y.p && x.name < y.name),
    );
    for (const it of items) heap.push(it);
    expect(drain(heap).map((i) => `${i.p}${i.name}`)).toEqual(['2a', '2b', '1a', '1c']);
  });

  it('peek shows what pop returns without taking it; an empty heap gives undefined', () => {
    const heap = new BinaryHeap<string>((a, b) => a < b);
    expect(heap.peek()).toBeUndefined();
    expect(heap.pop()).toBeUndefined();
    heap.push('m');
    heap.push('c');
    heap.push('x');
    expect(heap.peek()).toBe('c');
    expect(heap.size).toBe(3);
    expect(heap.pop()).toBe('c');
    expect(heap.peek()).toBe('m');
    heap.push('a');
    expect(drain(heap)).toEqual(['a', 'm', 'x']);
    expect(heap.size).toBe(0);
  });
});
