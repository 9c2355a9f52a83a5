import { describe, expect, it } from 'vitest';
import { KeyParser, type Key } from './lib/keys.js';
import { answerLines } from './lib/answer.js';

const show = (keys: Key[]) =>
  keys.map((k) => (k.kind === 'text' ? `${k.pasted ? 'P' : 'T'}:${k.bytes.toString()}` : k.kind));

describe('the fake TUI agent’s key parser', () => {
  it('reads typed text, Enter, Backspace, Ctrl-C, Ctrl-D and a lone Esc', () => {
    const p = new KeyParser();
    expect(
      show([...p.feed(Buffer.from('ab\x7fc\r\x03\x04')), ...p.feed(Buffer.from('\x1b'))]),
    ).toEqual(['T:ab', 'backspace', 'T:c', 'enter', 'ctrl-c', 'ctrl-d', 'escape']);
  });

  it('keeps newlines, CRs and escapes inside a bracketed paste as text, markers split anywhere', () => {
    const input = 'x\x1b[200~line 1\r\nline \x1b[31m2\x1b[201~\r';
    for (let cut = 1; cut < input.length; cut++) {
      const p = new KeyParser();
      const keys = [
        ...p.feed(Buffer.from(input.slice(0, cut))),
        ...p.feed(Buffer.from(input.slice(cut))),
      ];
      const pasted = Buffer.concat(
        keys.flatMap((k) => (k.kind === 'text' && k.pasted ? [k.bytes] : [])),
      ).toString();
      expect(pasted, `cut at ${cut}`).toBe('line 1\r\nline \x1b[31m2');
      expect(
        keys.filter((k) => k.kind === 'enter'),
        `cut at ${cut}`,
      ).toHaveLength(1);
    }
  });

  it('reads Up and Down (a dialog moves its cursor with them), ignores other cursor keys', () => {
    expect(show(new KeyParser().feed(Buffer.from('\x1b[Aa\x1b[1;5Cb\x1b[B')))).toEqual([
      'up',
      'T:ab',
      'down',
    ]);
  });
});

describe('answerLines', () => {
  it('echoes the input after ANSWER: and closes with two fixed lines', () => {
    expect(answerLines('hi\nthere')).toEqual([
      'ANSWER: hi',
      'there',
      'The fake agent read your message.',
      'End of answer.',
    ]);
  });
});
