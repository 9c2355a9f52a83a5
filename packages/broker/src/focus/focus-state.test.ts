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

describe('FocusState', () => {
  it('answers the terminal that reported focus last, until it loses it', () => {
    const a = client();
    const b = client();
    const attached = new Set([a, b]);
    const s1 = session(attached);
    const s2 = session(attached);
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
