import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HandlerError } from '../../errors.js';
import type { Session } from '../../sessions/session.js';
import { DeliveryQueue, ROUTE_RETRY_MS, type QueueItem } from './delivery-queue.js';
import { HopCounts } from './hop-count.js';
import type { Leg } from './records.js';
import type { RouteLog } from './route-log.js';

/** The injection into the target: the first try's Enter is not taken, the second's is. */
const injectInto = vi.fn();

/** An idle target whose first Enter is not taken (a reviewer that took it as a newline). */
function target(): Session {
  return {
    id: 's1',
    name: 'rv',
    state: 'idle',
    live: true,
    inputBytes: 0,
    turns: { ring: { count: 0, get: () => undefined } },
  } as unknown as Session;
}

describe('DeliveryQueue: a message its target did not take', () => {
  let events: { event: string; reason?: string | null }[];
  let queue: DeliveryQueue;

  beforeEach(() => {
    vi.useFakeTimers();
    events = [];
    injectInto.mockReset();
    injectInto
      .mockRejectedValueOnce(new HandlerError('not_submitted', 'it did not react to Enter'))
      .mockResolvedValueOnce(undefined);
    const session = target();
    queue = new DeliveryQueue({
      sessions: { resolve: () => session, wrapperOf: () => undefined },
      log: {
        add: (e: { event: string; reason?: string | null }) => events.push(e),
      } as unknown as RouteLog,
      hops: new HopCounts(),
      inject: injectInto,
      publish: () => {},
      failed: () => {},
    });
  });

  afterEach(() => {
    queue.dispose();
    vi.useRealTimers();
  });

  const item = (): QueueItem => ({
    leg: {
      name: 'loop.a',
      to: { session: 's1', name: 'rv' },
      from: [],
      fired: 0,
    } as unknown as Leg,
    message: 'Draft one.',
    turnIds: ['w:1'],
    hops: 0,
  });

  it('is tried again once ROUTE_RETRY_MS passed, with Enter on the text in the box', async () => {
    queue.enqueue('s1', item());
    await vi.advanceTimersByTimeAsync(0);
    expect(events.map((e) => e.event)).toEqual(['failed']);
    await vi.advanceTimersByTimeAsync(ROUTE_RETRY_MS);
    expect(events.map((e) => e.event)).toEqual(['failed', 'fired']);
    expect(injectInto).toHaveBeenCalledTimes(2);
    expect(injectInto.mock.calls[1]![3]).toMatchObject({ enter: true, resubmit: true });
  });

  it('is tried again when its timer fires before the clock says it is due (a busy event loop)', async () => {
    queue.enqueue('s1', item());
    await vi.advanceTimersByTimeAsync(0);
    expect(events.map((e) => e.event)).toEqual(['failed']);
    // The clock lags the timers by 50 ms: the retry's timer comes before its retryAt.
    vi.setSystemTime(Date.now() - 50);
    await vi.advanceTimersByTimeAsync(ROUTE_RETRY_MS);
    expect(events.map((e) => e.event)).toEqual(['failed']);
    await vi.advanceTimersByTimeAsync(50);
    expect(events.map((e) => e.event)).toEqual(['failed', 'fired']);
  });
});
