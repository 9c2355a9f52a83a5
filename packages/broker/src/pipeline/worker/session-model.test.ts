import { afterEach, describe, expect, it } from 'vitest';
import { SCREEN_FLOOD_BYTES } from '../../constants.js';
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
