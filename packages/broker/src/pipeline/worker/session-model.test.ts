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

  /** 2,000 numbered lines of 100 bytes, in batches of `batchBytes` or less, one per window. */
  async function feed(m: SessionModel, batchBytes: number): Promise<void> {
    const perBatch = Math.floor(batchBytes / 100);
    for (let i = 0; i < 2000; i += perBatch) {
      let batch = '';
      for (let k = i; k < Math.min(2000, i + perBatch); k++)
        batch += `${String(k).padStart(6, '0')} ${'y'.repeat(92)}\r\n`;
      m.output(Buffer.from(batch), Date.now());
      await vi.advanceTimersByTimeAsync(SCREEN_FLUSH_MS);
    }
  }

  it('full reads at a slow rate are a flood: most is never parsed, and the screen is the same', async () => {
    vi.useFakeTimers();
    // Fifty sessions `cat`ing at once each get a full read every few windows: well below
    // SCREEN_FLOOD_BYTES per window, each read as full as the kernel's buffer.
    expect(SCREEN_FLOOD_BATCH_BYTES * 2).toBeLessThan(SCREEN_FLOOD_BYTES);
    const shared = model().m;
    await feed(shared, SCREEN_FLOOD_BATCH_BYTES * 2);
    // The same lines in small pieces, as an answer streams: no flood, every byte parsed.
    const streamed = model().m;
    await feed(streamed, SCREEN_FLOOD_BATCH_BYTES / 2);
    expect(streamed.dropped).toBe(0);
    expect(await replay(shared)).toBe(await replay(streamed));
    // Against a scrollback of 100 and 24 rows, all but the last 150 lines or so go unparsed.
    expect(shared.dropped).toBeGreaterThan(1500 * 100);
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
