import { afterEach, describe, expect, it, vi } from 'vitest';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { until } from '@clippy/testkit/until';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { SCREEN_COMPACT_BYTES, SCREEN_FLOOD_BYTES, SCREEN_FLUSH_MS } from '../../constants.js';
import type { ReplyBody } from '../messages.js';
import { SessionModel } from './session-model.js';
import { TerminalModel } from './terminal-model.js';

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

/** 2,000 numbered lines of 100 bytes, in pieces of `pieceBytes` or less. */
function pieces(pieceBytes: number): Buffer[] {
  const perPiece = Math.max(1, Math.floor(pieceBytes / 100));
  const out: Buffer[] = [];
  for (let i = 0; i < 2000; i += perPiece) {
    let piece = '';
    for (let k = i; k < Math.min(2000, i + perPiece); k++)
      piece += `${String(k).padStart(6, '0')} ${'y'.repeat(92)}\r\n`;
    out.push(Buffer.from(piece));
  }
  return out;
}

/** The screen's replay once everything given was parsed. */
const replay = (m: SessionModel) => new Promise<string>((resolve) => m.serialize(resolve));

describe('a session whose screen only a replay reads (its detector reads none)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('parses nothing until its screen is read, then replays what parsing every byte would', async () => {
    const parses = vi.spyOn(TerminalModel.prototype, 'write');
    const lazy = model().m;
    for (const p of pieces(4096)) lazy.output(p, Date.now());
    expect(parses).not.toHaveBeenCalled();
    // The same lines, each piece parsed before the next comes (a replay asked after each).
    const eager = model().m;
    for (const p of pieces(4096)) {
      eager.output(p, Date.now());
      await replay(eager);
    }
    expect(eager.dropped).toBe(0);
    expect(await replay(lazy)).toBe(await replay(eager));
    // Against a scrollback of 100 and 24 rows, all but the last 150 lines or so went unparsed.
    expect(lazy.dropped).toBeGreaterThan(1500 * 100);
  });

  it('arms no timer for its screen: a keystroke’s echo, a flood', () => {
    // (A detector may arm its own: none here.)
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const { m } = model();
    m.output(Buffer.from('a'), Date.now());
    for (const p of pieces(64 * 1024)) m.output(p, Date.now());
    expect(timers).not.toHaveBeenCalled();
  });

  it('answers what only the screen model can at once, after everything before it', async () => {
    const { m, replies } = model();
    m.output(Buffer.from('hello\r\nab'), Date.now());
    m.output(Buffer.from('\x1b[6n'), Date.now());
    await until(() => answers(replies).length === 1, 'the cursor position report');
    expect(answers(replies)).toEqual(['\x1b[2;3R']);
    // A mode report and a setting's report (DECRQM, DECRQSS) likewise.
    m.output(Buffer.from('\x1b[?2004h\x1b[?2004$p'), Date.now());
    m.output(Buffer.from('\x1bP$qm\x1b\\'), Date.now());
    await until(() => answers(replies).length === 3, 'the mode and setting reports');
    expect(answers(replies).slice(1)).toEqual(['\x1b[?2004;1$y', '\x1bP1$r0m\x1b\\']);
  });

  it('keeps no more than SCREEN_COMPACT_BYTES held: what cannot be dropped is parsed past it', async () => {
    const parses = vi.spyOn(TerminalModel.prototype, 'write');
    const { m } = model();
    // Cursor addressing makes every byte before it unskippable.
    const frame = (i: number) => `\x1b[H${String(i).padStart(6, '0')}${'z'.repeat(1000)}`;
    let bytes = 0;
    for (let i = 0; bytes <= SCREEN_COMPACT_BYTES; i++) {
      const b = Buffer.from(frame(i));
      bytes += b.length;
      m.output(b, Date.now());
    }
    expect(parses).toHaveBeenCalled();
    expect(await replay(m)).toContain(String(Math.floor(bytes / 1007) - 1).padStart(6, '0'));
  });
});

describe('between two chunks of output', () => {
  it('keeps none of the last chunk’s text on the heap: 50 sessions print side by side', () => {
    // A session's next chunk comes only after the other sessions' chunks: what it keeps of the
    // last one meanwhile survives the worker's young-generation collections (the bytes are its
    // buffers'; a string of their text was kept whole, by a slice of it and by the scan's result).
    const gc = collector();
    const sessions = 50;
    const chunkBytes = 100_000;
    const text = `${'x'.repeat(99)}\n`.repeat(chunkBytes / 100 - 1) + `$ ${'y'.repeat(97)}`;
    const models: SessionModel[] = [];
    for (let i = 0; i < sessions; i++) {
      const { m } = model();
      m.detect({ preset: BUILTIN_PRESETS.bash!, maxTurnBytes: 1 << 20, cols: 80 });
      models.push(m);
    }
    gc();
    const before = v8.getHeapStatistics().used_heap_size;
    // Each chunk's text is one string of ~100 KB; its bytes live outside the JS heap.
    for (const m of models) m.output(Buffer.from(text), Date.now());
    gc();
    const kept = v8.getHeapStatistics().used_heap_size - before;
    // 50 chunks' text would be 5 MB; what a session keeps of its own is a line's worth.
    expect(kept).toBeLessThan((sessions * chunkBytes) / 4);
  });
});

describe('a screen preset’s session', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Timers of the flood window (SCREEN_FLUSH_MS) armed while `feed` runs. */
  function windowTimers(feed: (m: SessionModel) => void): number {
    const { m } = model();
    m.detect({ preset: BUILTIN_PRESETS.claude!, maxTurnBytes: 1 << 20, cols: 80 });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    feed(m);
    const armed = timers.mock.calls.filter(([, ms]) => ms === SCREEN_FLUSH_MS).length;
    timers.mockRestore();
    return armed;
  }

  it('wakes the worker for no flood window at a keystroke’s echo; output that could start a flood does', () => {
    // Each echoed key would otherwise wake the worker twice more, 10 and 20 ms later.
    expect(windowTimers((m) => m.output(Buffer.from('a'), Date.now()))).toBe(0);
    expect(windowTimers((m) => m.output(Buffer.alloc(4096, 0x61), Date.now()))).toBe(1);
  });

  it('parses its output as it comes: its detector reads the screen', async () => {
    const { m } = model();
    m.detect({ preset: BUILTIN_PRESETS.claude!, maxTurnBytes: 1 << 20, cols: 80 });
    const parses = vi.spyOn(TerminalModel.prototype, 'write');
    m.output(Buffer.from('> hello'), Date.now());
    expect(parses).toHaveBeenCalledTimes(1);
  });
});

describe('the screen model', () => {
  it('holds no xterm until its screen is needed, then one of the size last given', async () => {
    const t = new TerminalModel(
      80,
      24,
      100,
      () => {},
      () => {},
    );
    t.resize(100, 30);
    expect(t.hasTerminal).toBe(false);
    // The first write makes it: its screen shows what was written, at the size last given.
    t.write(Buffer.from(`${'x'.repeat(90)}\r\nnext`));
    expect(t.hasTerminal).toBe(true);
    await new Promise<void>((resolve) => t.replayWhenParsed(() => resolve()));
    const shot = t.snapshot();
    expect([shot.cols, shot.rows]).toEqual([100, 30]);
    expect(shot.lines.slice(0, 2)).toEqual(['x'.repeat(90), 'next']);
    t.dispose();
    // A replay asked of one never written to makes it too: an empty screen, cursor shown.
    const blank = new TerminalModel(
      80,
      24,
      100,
      () => {},
      () => {},
    );
    const replay = await new Promise<string>((resolve) => blank.replayWhenParsed(resolve));
    expect(replay).toBe('\x1b[?25h');
    blank.dispose();
  });

  it('counts an emoji two cells wide, as the agents and the user’s terminal do', async () => {
    const t = new TerminalModel(
      40,
      3,
      0,
      () => {},
      () => {},
    );
    // Codex (ratatui) draws a changed line's cells with the cursor placed for each run: after
    // "a🎉" (three cells) it places "b" at the fourth.
    t.write(Buffer.from('a🎉\x1b[1;4Hb, 日本\x1b[1;12H✦ • →'));
    await new Promise<void>((resolve) => t.replayWhenParsed(() => resolve()));
    expect(t.snapshot().lines[0]).toBe('a🎉b, 日本 ✦ • →');
    t.dispose();
  });
});

/** A full garbage collection on demand (the flag is set for this process, as `--expose-gc`). */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
