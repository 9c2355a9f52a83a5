import { describe, expect, it } from 'vitest';
import type { SessionState } from '@clippy/protocol';
import type { MultilineForm } from '@clippy/turns';
import { INJECT_TAKEN_MS, INJECT_VIEW_CHANGE_MS, inject, type InjectTarget } from './injector.js';

/**
 * A target that stays in one state, echoes every write and records what it was given; `lines`:
 * a line program (its `blocked` reads a line), else a TUI (its `blocked` is a dialog).
 */
function target(state: SessionState, lines = true): InjectTarget & { written: Buffer[] } {
  let out = 0;
  const written: Buffer[] = [];
  return {
    written,
    name: 't',
    isLive: () => true,
    state: () => state,
    waitState: async (ready, ms) => {
      // A fake target whose state never changes by itself: the wait runs its whole time.
      await new Promise((r) => setTimeout(r, ms));
      return ready.includes(state);
    },
    readsLines: () => lines,
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

describe('inject into a blocked target: one rule for send, paste, relay and deliver', () => {
  it('a program reading a line (a line preset) takes the text at once', async () => {
    const t = target('blocked');
    const r = await inject(t, Buffer.from('an answer'), {
      enter: true,
      force: false,
      idleWaitMs: 50,
    });
    expect(r.submitted).toBe(true);
    expect(Buffer.concat(t.written).toString()).toBe('\x1b[200~an answer\x1b[201~\r');
  });

  it("a TUI's dialog takes keys, not text: the text waits, then target_busy names --keys", async () => {
    const t = target('blocked', false);
    await expect(
      inject(t, Buffer.from('a whole answer'), { enter: true, force: false, idleWaitMs: 50 }),
    ).rejects.toMatchObject({ code: 'target_busy', message: expect.stringContaining('--keys') });
    expect(t.written).toHaveLength(0);
  });

  it("an agent's input box is emptied first where its preset says how (Qwen Code's cancelled message put back); not a dialog's", async () => {
    const clear = Buffer.from('\x15\x15');
    const idle = { ...target('idle', false), clearInput: () => clear };
    await inject(idle, Buffer.from('next'), { enter: false, force: false, idleWaitMs: 50 });
    expect(Buffer.concat(idle.written).toString()).toBe('\x15\x15\x1b[200~next\x1b[201~');
    const dialog = { ...target('blocked', false), clearInput: () => clear };
    await inject(dialog, Buffer.from('x'), { enter: false, force: true, idleWaitMs: 50 });
    expect(Buffer.concat(dialog.written).toString()).toBe('\x1b[200~x\x1b[201~');
  });

  it('no second Enter once the agent asks a question its first Enter led to (it would answer it)', async () => {
    let state: SessionState = 'idle';
    const t = target('idle', false);
    const asking = {
      ...t,
      state: () => state,
      // The agent shows nothing the detector takes for the Enter within the wait…
      submits: () => ({ sent: t.written.filter((w) => w.toString() === '\r').length, taken: 0 }),
      waitTaken: async () => {
        // …and asks (its tool's approval dialog) just after.
        state = 'blocked';
        return false;
      },
    };
    const r = await inject(asking, Buffer.from('create a file'), {
      enter: true,
      force: false,
      idleWaitMs: 50,
    });
    expect(r.submitted).toBe(true);
    expect(Buffer.concat(t.written).toString().match(/\r/gu)).toHaveLength(1);
  });

  it('--force goes in whatever the state', async () => {
    const t = target('blocked', false);
    const r = await inject(t, Buffer.from('x'), { enter: false, force: true, idleWaitMs: 50 });
    expect(r.submitted).toBe(false);
    expect(Buffer.concat(t.written).toString()).toBe('\x1b[200~x\x1b[201~');
  });

  it('a busy target is waited on, and fails with target_busy', async () => {
    const t = target('busy');
    await expect(
      inject(t, Buffer.from('1'), { enter: true, force: false, idleWaitMs: 50 }),
    ).rejects.toMatchObject({ code: 'target_busy' });
  });
});

describe("multi-line text into a program without bracketed paste: its preset's form", () => {
  const aider = { mode: 'block', open: '{clippy', close: 'clippy}' } as const;
  const plain = (form?: MultilineForm) => ({
    ...target('idle'),
    bracketedPaste: () => false,
    ...(form ? { multiline: () => form } : {}),
  });

  it('a block is typed around the lines; a paste-mode target gets the text as it is', async () => {
    const t = plain(aider);
    await inject(t, Buffer.from('a\nb\n'), { enter: false, force: false });
    expect(Buffer.concat(t.written).toString()).toBe('{clippy\na\nb\nclippy}');
    const pasting = { ...target('idle'), multiline: () => aider };
    await inject(pasting, Buffer.from('a\nb'), { enter: false, force: false });
    expect(Buffer.concat(pasting.written).toString()).toBe('\x1b[200~a\nb\x1b[201~');
  });

  it('without a form (lines) every newline stays an Enter', async () => {
    const t = plain();
    await inject(t, Buffer.from('a\nb'), { enter: false, force: false });
    expect(Buffer.concat(t.written).toString()).toBe('a\nb');
  });

  it('a text holding the closing line is refused before anything is typed', async () => {
    const t = plain(aider);
    await expect(
      inject(t, Buffer.from('a\nclippy}\nb'), { enter: true, force: false }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('line 2 of the text is "clippy}"'),
    });
    expect(t.written).toHaveLength(0);
  });
});

describe('an Enter a TUI is slow to show it took', () => {
  /**
   * A TUI whose detector saw each Enter as a submit and never says it took it within the first
   * wait; `shows` is whether its box still holds the text then. Its longer wait says yes.
   */
  function slow(shows: boolean) {
    let sent = 0;
    let out = 0;
    const waits: number[] = [];
    return {
      ...target('idle', false),
      waits,
      inputShows: (text: string) => (sent === 0 ? text === 'a question' : shows),
      submits: () => ({ sent, taken: 0 }),
      // It redraws at each Enter (its box, or a view being drawn).
      outputBytes: () => out,
      write: async function (this: void, data: Uint8Array) {
        out += data.length;
        if (Buffer.from(data).toString() === '\r') sent++;
      },
      waitTaken: async (_seq: number, ms: number) => {
        waits.push(ms);
        return ms === INJECT_VIEW_CHANGE_MS;
      },
    };
  }

  it('its box gone from a screen that says nothing yet (a view being drawn): waited on, one Enter', async () => {
    const t = slow(false);
    const r = await inject(t, Buffer.from('a question'), { enter: true, force: false });
    expect(r.submitted).toBe(true);
    expect(t.waits).toEqual([INJECT_TAKEN_MS, INJECT_VIEW_CHANGE_MS]);
  });

  it('its box still holding the text: Enter again, and not_submitted after the second', async () => {
    const t = slow(true);
    await expect(
      inject(t, Buffer.from('a question'), { enter: true, force: false }),
    ).rejects.toMatchObject({ code: 'not_submitted' });
    expect(t.waits).toEqual([INJECT_TAKEN_MS, INJECT_TAKEN_MS]);
  });

  it('not a byte from it since Enter (it has not read it yet): its first output is waited for, one Enter', async () => {
    // OpenCode's first message on a loaded machine: nothing at all for over 10 s after Enter,
    // then its session view. A second Enter then was pressed and the send failed.
    let sent = 0;
    let out = 0;
    let reacted = false;
    const waits: string[] = [];
    const t = {
      ...target('idle', false),
      inputShows: (text: string) => text === 'a question',
      submits: () => ({ sent, taken: reacted ? sent : 0 }),
      outputBytes: () => out,
      write: async (data: Uint8Array) => {
        if (Buffer.from(data).toString() === '\r') sent++;
        else out += data.length; // the paste is drawn; the Enter brings nothing (yet)
      },
      waitOutput: async (after: number, ms: number) => {
        waits.push(`output ${ms}`);
        if (ms === INJECT_VIEW_CHANGE_MS && sent > 0) {
          reacted = true;
          out++;
        }
        return out > after;
      },
      waitTaken: async (seq: number, ms: number) => {
        waits.push(`taken ${ms}`);
        return reacted && seq <= sent;
      },
    };
    const r = await inject(t, Buffer.from('a question'), { enter: true, force: false });
    expect(r.submitted).toBe(true);
    expect(sent).toBe(1);
    expect(waits.filter((w) => !w.startsWith('output 80') && !w.startsWith('output 5000'))).toEqual(
      [`taken ${INJECT_TAKEN_MS}`, `output ${INJECT_VIEW_CHANGE_MS}`, `taken ${INJECT_TAKEN_MS}`],
    );
  });

  it('its box gone after Enter, then back holding the text (a resumed Gemini CLI): Enter again at once', async () => {
    // Gemini CLI resumed: the first Enter dropped while "Resuming session..." replaces its box,
    // which comes back with the text; the second Enter is taken. No wait runs out its time.
    let sent = 0;
    let out = 0;
    let boxGone = false;
    const waits: string[] = [];
    const t = {
      ...target('idle', false),
      inputShows: (text: string) => !boxGone && text === 'a question',
      submits: () => ({ sent, taken: sent >= 2 ? 2 : 0 }),
      // "Resuming session..." drawn in place of the box is output since the Enter.
      outputBytes: () => out,
      write: async function (this: void, data: Uint8Array) {
        if (Buffer.from(data).toString() !== '\r') return;
        sent++;
        out++;
        boxGone = sent === 1;
      },
      waitTaken: async (seq: number, ms: number, held?: string) => {
        if (sent >= 2) return true;
        // The first wait runs out with the box gone; then the box comes back holding the text,
        // which a wait given `held` ends on (one that is not runs out its time).
        if (ms === INJECT_TAKEN_MS) waits.push(`ran out (${ms} ms)`);
        else {
          boxGone = false;
          waits.push(held === 'a question' ? 'box back' : `ran out (${ms} ms)`);
        }
        return false;
      },
    };
    const r = await inject(t, Buffer.from('a question'), { enter: true, force: false });
    expect(r.submitted).toBe(true);
    expect(sent).toBe(2);
    expect(waits).toEqual([`ran out (${INJECT_TAKEN_MS} ms)`, 'box back']);
  });

  /**
   * Gemini CLI resumed: its box drawn before it loads the chat, then "Resuming session..." in its
   * place (a loading screen: every key read dropped), then the box again — holding the paste if
   * it read it first (`dropped` false), empty if it read it while loading. `loading` false: no
   * loading screen, and a box that never shows the paste (an agent slow to read it).
   */
  function resuming(opts: { loading: boolean; dropped: boolean }) {
    let loads = 0;
    let box: string | null = '';
    let after = '';
    let enters = 0;
    const pastes: string[] = [];
    const t: InjectTarget = {
      ...target('idle', false),
      loads: () => loads,
      // As the detector has it: no input line while the box is gone.
      inputShows: (text) => box === text,
      waitShown: async (text) => box === text,
      waitState: async (ready) => {
        if (box === null) box = after;
        return ready.includes('idle');
      },
      write: async (data) => {
        const s = Buffer.from(data).toString();
        if (s === '\r') return void enters++;
        pastes.push(s);
        if (pastes.length === 1 && opts.loading) {
          loads++;
          box = null;
          after = opts.dropped ? '' : 'a question';
        } else if (pastes.length > 1 || !opts.dropped) box = 'a question';
      },
      submits: () => ({ sent: enters, taken: enters }),
      waitTaken: async () => true,
    };
    return { t, pastes, enters: () => enters };
  }

  it('a paste its box lost to a loading screen (back without it) is typed again, once', async () => {
    const r = resuming({ loading: true, dropped: true });
    expect(
      (await inject(r.t, Buffer.from('a question'), { enter: true, force: false })).submitted,
    ).toBe(true);
    expect([r.pastes, r.enters()]).toEqual([
      ['\x1b[200~a question\x1b[201~', '\x1b[200~a question\x1b[201~'],
      1,
    ]);
  });

  it('never typed twice where the screen does not prove it lost: box back holding it, or no loading screen', async () => {
    const kept = resuming({ loading: true, dropped: false });
    await inject(kept.t, Buffer.from('a question'), { enter: true, force: false });
    expect(kept.pastes).toHaveLength(1);
    // A first-starting Gemini CLI under load reads a paste late: the box shows nothing yet.
    const late = resuming({ loading: false, dropped: true });
    await inject(late.t, Buffer.from('a question'), { enter: true, force: false });
    expect(late.pastes).toHaveLength(1);
  });
});
