import { describe, expect, it } from 'vitest';
import { PendingConnections } from './pending-connections.js';

describe('PendingConnections', () => {
  it('closes the oldest waiting connection when one more comes at the cap', () => {
    const reports: number[] = [];
    const pending = new PendingConnections(3, (n) => reports.push(n));
    const closed: number[] = [];
    const tickets = [1, 2, 3].map((i) => pending.admit(() => closed.push(i)));
    expect(pending.size).toBe(3);
    pending.admit(() => closed.push(4));
    expect(closed).toEqual([1]);
    // One that proved itself no longer counts: the next newcomer pushes out the next oldest waiting.
    tickets[1]!.settle();
    pending.admit(() => closed.push(5));
    expect(closed).toEqual([1]);
    pending.admit(() => closed.push(6));
    expect(closed).toEqual([1, 3]);
    expect(pending.size).toBe(3);
    // The first closing is reported at once; the rest wait for the report interval.
    expect(reports).toEqual([1]);
    pending.dispose();
  });

  it('settling twice, or after being pushed out, changes nothing', () => {
    const pending = new PendingConnections(1, () => {});
    const closed: string[] = [];
    const a = pending.admit(() => closed.push('a'));
    pending.admit(() => closed.push('b'));
    a.settle();
    a.settle();
    expect(pending.size).toBe(1);
    expect(closed).toEqual(['a']);
    pending.dispose();
  });

  it('closes a connection whose deadline passes, unless it settled or its deadline was cleared', async () => {
    const pending = new PendingConnections(10, () => {});
    const closed: string[] = [];
    let late!: () => void;
    const lateClosed = new Promise<void>((r) => (late = r));
    const proved = pending.admit(() => closed.push('proved'), 20);
    const handedOver = pending.admit(() => closed.push('handed over'), 20);
    pending.admit(() => {
      closed.push('idle');
      late();
    }, 40);
    proved.settle();
    handedOver.clearDeadline();
    await lateClosed;
    expect(closed).toEqual(['idle']);
    // Handed over, it still counts until it settles.
    expect(pending.size).toBe(1);
    handedOver.settle();
    expect(pending.size).toBe(0);
    pending.dispose();
  });
});
