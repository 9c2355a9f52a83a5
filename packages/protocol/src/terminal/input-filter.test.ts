import { describe, expect, it } from 'vitest';
import { detachKeyEncodings, parseDetachKey } from './detach-key.js';
import { InputFilter } from './input-filter.js';

/** Feeds reads one by one; returns what reached the program, the focus changes and detaches. */
function run(
  reads: string[],
  opts: { interactive?: boolean; focus?: boolean; programWantsFocus?: boolean } = {},
) {
  const sent: string[] = [];
  const focus: boolean[] = [];
  let detaches = 0;
  const filter = new InputFilter(
    detachKeyEncodings(parseDetachKey('ctrl-]')),
    {
      input: (d) => sent.push(d.toString('latin1')),
      detach: () => detaches++,
      ...(opts.focus
        ? {
            focus: (f: boolean) => focus.push(f),
            programWantsFocus: () => !!opts.programWantsFocus,
          }
        : {}),
    },
    opts.interactive ?? true,
  );
  for (const r of reads) filter.feed(Buffer.from(r, 'latin1'));
  return { sent, focus, detaches, detached: filter.detached };
}

describe('InputFilter', () => {
  it('passes keystrokes on, up to the detach key, and detaches once', () => {
    expect(run(['ls\r', 'ab\x1dcd', 'more\x1d'])).toEqual({
      sent: ['ls\r', 'ab'],
      focus: [],
      detaches: 1,
      detached: true,
    });
  });

  it('takes focus reports out, unless the program asked for them itself', () => {
    expect(run(['\x1b[I', 'a\x1b[Ob'], { focus: true })).toMatchObject({
      sent: ['ab'],
      focus: [true, false],
    });
    expect(run(['a\x1b[Ob'], { focus: true, programWantsFocus: true })).toMatchObject({
      sent: ['a\x1b[Ob'],
      focus: [false],
    });
  });

  it('leaves focus reports in the input when nobody follows focus', () => {
    expect(run(['\x1b[I'])).toMatchObject({ sent: ['\x1b[I'], focus: [] });
  });

  it('sends nothing for an observer, but still sees its detach key', () => {
    expect(run(['typed', 'x\x1d'], { interactive: false })).toMatchObject({
      sent: [],
      detaches: 1,
    });
  });

  it('filters alike on both sides of the byte-by-byte bound (64 bytes)', () => {
    for (const n of [1, 63, 64, 65, 200]) {
      const plain = 'k'.repeat(n);
      expect(run([plain, ''])).toMatchObject({ sent: [plain], detaches: 0 });
      const head = 'k'.repeat(n - 1);
      expect(run([`${head}\x1d`])).toMatchObject({ sent: n > 1 ? [head] : [], detaches: 1 });
      expect(run([`${head}\x1b[93;5u`])).toMatchObject({ sent: n > 1 ? [head] : [], detaches: 1 });
      expect(run([`${head}\x1b[I`], { focus: true })).toMatchObject({
        sent: n > 1 ? [head] : [],
        focus: [true],
      });
      expect(run([`${head}\x1b[A`])).toMatchObject({ sent: [`${head}\x1b[A`], detaches: 0 });
    }
  });

  it('finds the key inside a paste and after an escape sequence in the same read', () => {
    expect(run(['\x1b[200~pasted\x1dtext\x1b[201~'])).toMatchObject({
      sent: ['\x1b[200~pasted'],
      detaches: 1,
    });
    expect(run(['\x1b[A\x1b[93;5u'])).toMatchObject({ sent: ['\x1b[A'], detaches: 1 });
  });
});
