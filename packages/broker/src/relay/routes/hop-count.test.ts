import type { TurnMeta } from '@clippy/protocol';
import { describe, expect, it } from 'vitest';
import { TurnRing } from '../../turn-ring/turn-ring.js';
import type { Session } from '../../sessions/session.js';
import { HopCounts } from './hop-count.js';

// Which turns carry a route's hop count. The cycles themselves run end to end in
// cli/src/route-cycles.e2e.test.ts; this is the rule for a message that sets off several turns
// (several lines into a line program), which a real agent's timing makes hard to pin there.

/** A session as HopCounts sees it: its ID, the input written to it and its turn ring. */
function session() {
  const ring = new TurnRing('s', { depth: 100, maxTurnBytes: 1024 });
  const s = { id: 's', inputBytes: 0, turns: { ring } };
  const complete = (hops: HopCounts): TurnMeta => {
    const stored = ring.add({
      content: Buffer.from('answer'),
      text: 'answer',
      prompt: '',
      interrupted: false,
      startedAt: 0,
      endedAt: 1,
    });
    const meta: TurnMeta = { ...stored };
    hops.stamp(s as unknown as Session, meta);
    return meta;
  };
  return { s, ring, complete };
}

describe('HopCounts', () => {
  it('gives 0 to a turn no route set off', () => {
    const hops = new HopCounts();
    const { complete } = session();
    expect(complete(hops).hops).toBe(0);
  });

  it('stamps every turn an injection sets off, on the announcement and the stored turn', () => {
    const hops = new HopCounts();
    const { s, ring, complete } = session();
    hops.injecting('s', 3);
    // A quick target completes a turn while the injection is still under way.
    expect(complete(hops).hops).toBe(3);
    s.inputBytes += 40;
    hops.injected(s as unknown as Session);
    // The other lines of the message: more turns, no other input.
    expect(complete(hops).hops).toBe(3);
    expect(complete(hops).hops).toBe(3);
    expect(ring.get(2)?.hops).toBe(3);
  });

  it('lets a turn after someone else’s input start a chain of its own', () => {
    const hops = new HopCounts();
    const { s, complete } = session();
    hops.injecting('s', 5);
    s.inputBytes += 10;
    hops.injected(s as unknown as Session);
    s.inputBytes += 3; // a person typed
    expect(complete(hops).hops).toBe(0);
    expect(complete(hops).hops).toBe(0);
  });

  it('forgets an injection that did not go in', () => {
    const hops = new HopCounts();
    const { complete } = session();
    hops.injecting('s', 2);
    hops.notInjected('s');
    expect(complete(hops).hops).toBe(0);
  });
});
