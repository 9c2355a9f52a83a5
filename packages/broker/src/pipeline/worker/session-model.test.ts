import { afterEach, describe, expect, it, vi } from 'vitest';
import { PIPELINE_POST_INTERVAL_MS, SCREEN_FLOOD_BYTES, SCREEN_QUIET_MS } from '../../constants.js';
import type { ReplyBody } from '../messages.js';
import { SessionModel } from './session-model.js';

const models: SessionModel[] = [];
afterEach(() => {
  for (const m of models.splice(0)) m.dispose();
});

/** A session's model in the worker, and every reply it sent. */
function model(): { m: SessionModel; replies: ReplyBody[] } {
  const replies: ReplyBody[] = [];
  const m = new SessionModel(80, 24, 100, (r) => replies.push(r));
  models.push(m);
  return { m, replies };
}

const answers = (replies: ReplyBody[]) => replies.flatMap((r) => ('answer' in r ? [r.answer] : []));

const flood = () =>
  Buffer.from(`${'y'.repeat(99)}\r\n`.repeat(Math.ceil((SCREEN_FLOOD_BYTES * 3) / 101)));

describe('a program’s device-attribute query', () => {
  it('in a flood the screen model has not parsed yet: answered at once, and once', async () => {
    // Gemini CLI asks at start, among its first screens, and takes a late answer for keys.
    const { m, replies } = model();
    m.output(flood(), Date.now());
    m.output(Buffer.from('\x1b[c\x1b[>c'), Date.now());
    expect(answers(replies)).toEqual(['\x1b[?1;2c', '\x1b[>0;276;0c']);
    // Once the screen model parsed it all, no second answer came from it.
    await new Promise<void>((resolve) => m.serialize(() => resolve()));
    expect(answers(replies)).toEqual(['\x1b[?1;2c', '\x1b[>0;276;0c']);
  });

  it('split across two reads, with parameters 0: answered when its last byte comes', () => {
    const { m, replies } = model();
    m.output(Buffer.from('hello \x1b['), Date.now());
    expect(answers(replies)).toEqual([]);
    m.output(Buffer.from('0c world'), Date.now());
    expect(answers(replies)).toEqual(['\x1b[?1;2c']);
  });

  it('is not confused with what is not one: CSI 1 c, CSI = c, text', () => {
    const { m, replies } = model();
    m.output(Buffer.from('abc\x1b[1c\x1b[=c c'), Date.now());
    expect(answers(replies)).toEqual([]);
  });
});

describe('the flood window', () => {
  /** Timers made so far under fake timers (their IDs count up): a probe timer's ID. */
  function timersMade(): number {
    const probe = setTimeout(() => {}, 0);
    clearTimeout(probe);
    const id = (probe as unknown as { id?: number }).id ?? Number(probe);
    expect(Number.isFinite(id)).toBe(true);
    return id;
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('arms no timer for calm output', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { m } = model();
    for (let i = 0; i < 20; i++) {
      m.output(Buffer.from(`line ${i}\r\n`), Date.now());
      await vi.advanceTimersByTimeAsync(8);
    }
    // xterm parsed it all; nothing of the model's waits to wake the worker.
    expect(vi.getTimerCount()).toBe(0);
    const replay = await new Promise<string>((resolve) => m.serialize(resolve));
    expect(replay).toContain('line 19');
  });

  it('wakes the worker no more than messages come during a flood, and shows its end after it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { m, replies } = model();
    // Every progress is reported: the last one tells what reached the screen model.
    m.setHeld(true);
    const consumed = () => replies.flatMap((r) => ('consumed' in r ? [r.consumed] : [])).pop();
    const messages = 50;
    let sent = 0;
    const before = timersMade();
    // A flood's messages, PIPELINE_POST_INTERVAL_MS apart, then the prompt after it.
    for (let i = 0; i < messages; i++) {
      const chunk = flood();
      sent += chunk.length;
      m.output(chunk, Date.now());
      await vi.advanceTimersByTimeAsync(PIPELINE_POST_INTERVAL_MS);
    }
    m.output(Buffer.from('END$ '), Date.now());
    sent += 5;
    // Held while the flood may go on; the timers made meanwhile are all the model's (xterm
    // has been given nothing yet), and each one that fires is a wake-up of the worker.
    expect(consumed()).toBeLessThan(sent);
    const armed = timersMade() - before - 1;
    await vi.advanceTimersByTimeAsync(SCREEN_QUIET_MS * 2);
    // Once it stopped, everything held reached the screen model by itself.
    expect(consumed()).toBe(sent);
    // The flood's one timer moves on with the output: far fewer wake-ups than messages.
    const windows =
      (messages * PIPELINE_POST_INTERVAL_MS) / (SCREEN_QUIET_MS - PIPELINE_POST_INTERVAL_MS);
    expect(armed).toBeLessThanOrEqual(Math.ceil(windows) + 1);
  });
});
