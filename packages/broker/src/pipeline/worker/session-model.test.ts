import { afterEach, describe, expect, it, vi } from 'vitest';
import { SCREEN_FLOOD_BATCH_BYTES, SCREEN_FLOOD_BYTES, SCREEN_FLUSH_MS } from '../../constants.js';
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

describe('a flood shared with other sessions', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The screen's replay once everything given was parsed. */
  const replay = (m: SessionModel) =>
    new Promise<string>((resolve) => {
      m.serialize(resolve);
      void vi.runAllTimersAsync();
    });

  /** Numbered lines, `n` at a time in batches of `batchBytes` or less, one batch per window. */
  async function feed(m: SessionModel, lines: number, batchBytes: number): Promise<void> {
    const perBatch = Math.floor(batchBytes / 100);
    for (let i = 0; i < lines; i += perBatch) {
      let batch = '';
      for (let k = i; k < Math.min(lines, i + perBatch); k++)
        batch += `${String(k).padStart(6, '0')} ${'y'.repeat(92)}\r\n`;
      m.output(Buffer.from(batch), Date.now());
      await vi.advanceTimersByTimeAsync(SCREEN_FLUSH_MS);
    }
  }

  it('full reads at a slow rate are a flood: most of it is never parsed, and the screen is the same', async () => {
    vi.useFakeTimers();
    // Fifty sessions `cat`ing at once each get a full read every few windows: well below
    // SCREEN_FLOOD_BYTES per window, each read as full as the kernel's buffer.
    const batch = SCREEN_FLOOD_BATCH_BYTES * 2;
    expect(batch).toBeLessThan(SCREEN_FLOOD_BYTES);
    const shared = model().m;
    await feed(shared, 2000, batch);
    // The same lines written at once, for the screen they must end in.
    const whole = model().m;
    let all = '';
    for (let k = 0; k < 2000; k++) all += `${String(k).padStart(6, '0')} ${'y'.repeat(92)}\r\n`;
    whole.output(Buffer.from(all), Date.now());
    expect(await replay(shared)).toBe(await replay(whole));
    // 2,000 lines against a scrollback of 100 and 24 rows: all but the last 150 or so go unparsed.
    expect(shared.dropped).toBeGreaterThan(1500 * 100);
  });

  it('an answer streamed in small pieces is not a flood: parsed as it comes', async () => {
    vi.useFakeTimers();
    const { m } = model();
    await feed(m, 2000, SCREEN_FLOOD_BATCH_BYTES / 2);
    expect(m.dropped).toBe(0);
  });
});

describe('a keystroke’s echo', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Timers of the flood window (SCREEN_FLUSH_MS) armed while `feed` runs. */
  function windowTimers(feed: (m: SessionModel) => void): number {
    const { m } = model();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    feed(m);
    const armed = timers.mock.calls.filter(([, ms]) => ms === SCREEN_FLUSH_MS).length;
    timers.mockRestore();
    return armed;
  }

  it('wakes the worker for no flood window; output that could start a flood does', () => {
    // Each echoed key would otherwise wake the worker twice more, 10 and 20 ms later.
    expect(windowTimers((m) => m.output(Buffer.from('a'), Date.now()))).toBe(0);
    expect(windowTimers((m) => m.output(Buffer.alloc(4096, 0x61), Date.now()))).toBe(1);
  });
});
