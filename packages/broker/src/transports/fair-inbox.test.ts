import { describe, expect, it } from 'vitest';
import { FairInbox } from './fair-inbox.js';

/** An inbox whose items each take `costMs` on a fake clock; the items handled per turn. */
async function turns(count: number, costMs: number, perTurn = 64, budgetMs = 5) {
  let now = 0;
  const handled: number[] = [];
  let turn = -1;
  let marked = false;
  let done: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const inbox = new FairInbox(
    perTurn,
    {
      message: () => {
        // A new turn of the event loop since the last item: our immediate ran in between
        // (queued before the drain queues its next turn).
        if (!marked) {
          marked = true;
          turn++;
          setImmediate(() => (marked = false));
        }
        now += costMs;
        handled[turn] = (handled[turn] ?? 0) + 1;
        if (handled.reduce((a, b) => a + b, 0) === count) done();
      },
      failure: () => {},
      pause: () => {},
      resume: () => {},
    },
    budgetMs,
    () => now,
  );
  inbox.push(Array.from({ length: count }, (_, i) => i));
  await finished;
  inbox.dispose();
  return handled;
}

describe('FairInbox', () => {
  it('handles cheap requests in batches of perTurn', async () => {
    expect(await turns(200, 0)).toEqual([64, 64, 64, 8]);
  });

  it('handles costly ones (a spawn forks a process) one per turn past its time budget', async () => {
    const handled = await turns(20, 50);
    expect(handled.every((n) => n === 1)).toBe(true);
    expect(handled).toHaveLength(20);
  });

  it('stops a batch once its time is spent', async () => {
    expect(await turns(12, 2)).toEqual([3, 3, 3, 3]);
  });
});
