import { describe, expect, it } from 'vitest';
import type { Session, SessionClient } from '../sessions/session.js';
import { FocusState } from './focus-state.js';

/** A session as FocusState sees it: whether it runs and who is attached. */
function session(attached: Set<SessionClient>, live = { value: true }): Session {
  return {
    get live() {
      return live.value;
    },
    isAttached: (c: SessionClient) => attached.has(c),
  } as unknown as Session;
}
const client = (): SessionClient => ({ send: () => {}, bufferedAmount: 0 });

/** Two attached terminals, `a` showing `s1` and `b` showing `s2`. */
function twoTerminals() {
  const a = client();
  const b = client();
  const attached = new Set([a, b]);
  return { a, b, s1: session(attached), s2: session(attached) };
}

describe('FocusState', () => {
  it('answers the terminal that reported focus last, until it loses it', () => {
    const { a, b, s1, s2 } = twoTerminals();
    const focus = new FocusState();
    expect(focus.focused()).toBeNull();
    focus.focusIn(s1, a, 1);
    focus.focusIn(s2, b, 2);
    expect(focus.focused()).toMatchObject({ session: s2, client: b, since: 2 });
    focus.focusOut(s1, a); // a late focus-out of the other terminal changes nothing
    expect(focus.focused()?.session).toBe(s2);
    focus.focusOut(s2, b);
    expect(focus.focused()).toBeNull();
  });

  it('names the terminal tmux switched to, whatever order two terminals’ reports were read in', () => {
    // tmux switching from window one to two writes one's focus-out, then two's focus-in; after
    // an earlier switch to one. Read in that order, and in the orders a loaded machine reads
    // two PTYs in: two's reports first, or one's focus-in only after two's.
    const { a: one, b: two, s1, s2 } = twoTerminals();
    const orders: [SessionClient, 'in' | 'out'][][] = [
      [
        [one, 'in'],
        [two, 'out'],
        [one, 'out'],
        [two, 'in'],
      ],
      [
        [two, 'out'],
        [two, 'in'],
        [one, 'in'],
        [one, 'out'],
      ],
      [
        [two, 'in'],
        [one, 'in'],
        [one, 'out'],
      ],
    ];
    for (const order of orders) {
      const focus = new FocusState();
      for (const [c, report] of order) {
        const s = c === one ? s1 : s2;
        if (report === 'in') focus.focusIn(s, c);
        else focus.focusOut(s, c);
      }
      expect(focus.focused()?.session).toBe(s2);
    }
  });

  it('a focus that only passed over a terminal goes back to the one before; one that stayed does not', () => {
    const { a, b, s1, s2 } = twoTerminals();
    const focus = new FocusState();
    focus.focusIn(s1, a, 1_000);
    focus.focusIn(s2, b, 2_000);
    focus.focusOut(s2, b, 2_040); // a window switch passing over b
    expect(focus.focused()).toMatchObject({ session: s1, client: a, since: 1_000 });
    focus.focusIn(s2, b, 3_000);
    focus.focusOut(s2, b, 3_500); // the user was in b, then left for another window
    expect(focus.focused()).toBeNull();
    // Never back to a terminal that lost focus itself meanwhile.
    focus.focusIn(s1, a, 4_000);
    focus.focusIn(s2, b, 5_000);
    focus.focusOut(s1, a, 5_010);
    focus.focusOut(s2, b, 5_020);
    expect(focus.focused()).toBeNull();
  });

  it('forgets a terminal that detached, and a session that ended', () => {
    const a = client();
    const attached = new Set([a]);
    const live = { value: true };
    const s = session(attached, live);
    const focus = new FocusState();
    focus.setPid(a, 4242);
    expect(focus.pidOf(a)).toBe(4242);
    focus.focusIn(s, a);
    attached.delete(a);
    expect(focus.focused()).toBeNull();
    attached.add(a);
    focus.focusIn(s, a);
    live.value = false;
    expect(focus.focused()).toBeNull();
  });
});
