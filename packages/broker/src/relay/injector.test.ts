import { describe, expect, it } from 'vitest';
import type { SessionState } from '@clippy/protocol';
import { inject, type InjectTarget } from './injector.js';

/** A target that stays in one state, echoes every write and records what it was given. */
function target(state: SessionState): InjectTarget & { written: Buffer[] } {
  let out = 0;
  const written: Buffer[] = [];
  return {
    written,
    name: 't',
    isLive: () => true,
    state: () => state,
    waitState: async (ready, ms) => {
      await new Promise((r) => setTimeout(r, ms));
      return ready.includes(state);
    },
    bracketedPaste: () => true,
    outputBytes: () => out,
    waitOutput: async (after) => out > after,
    write: async (data) => {
      written.push(Buffer.from(data));
      out += data.length;
    },
    drain: async () => {},
    canonicalMode: async () => false,
  };
}

describe('inject into a blocked target', () => {
  it('an answer (send, paste) goes in at once', async () => {
    const t = target('blocked');
    const r = await inject(t, Buffer.from('1'), {
      enter: true,
      force: false,
      answers: true,
      idleWaitMs: 50,
    });
    expect(r.submitted).toBe(true);
    expect(Buffer.concat(t.written).toString()).toBe('\x1b[200~1\x1b[201~\r');
  });

  it('anything else (relay, deliver) waits for idle and fails with target_busy', async () => {
    const t = target('blocked');
    await expect(
      inject(t, Buffer.from('a whole answer'), { enter: true, force: false, idleWaitMs: 50 }),
    ).rejects.toMatchObject({ code: 'target_busy' });
    expect(t.written).toHaveLength(0);
  });

  it('a busy target is waited on even for an answer', async () => {
    const t = target('busy');
    await expect(
      inject(t, Buffer.from('1'), { enter: true, force: false, answers: true, idleWaitMs: 50 }),
    ).rejects.toMatchObject({ code: 'target_busy' });
  });
});
