import { describe, expect, it } from 'vitest';
import { TextRenderer } from './text-renderer.js';

const render = (s: string): string => TextRenderer.render(s);

describe('TextRenderer', () => {
  it('resolves carriage-return overwrites (progress bars)', () => {
    expect(render('10%\r50%\r100% done\r\nnext')).toBe('100% done\nnext');
  });

  it('resolves backspaces', () => {
    expect(render('abd\bc\r\nx\b\by')).toBe('abc\ny');
  });

  it('erases in line: to the end, to the start, the whole line', () => {
    expect(render('hello world\r\x1b[6C\x1b[K')).toBe('hello');
    expect(render('hello world\x1b[6D\x1b[1K')).toBe('      world');
    expect(render('spinner ⠋\r\x1b[2Kdone')).toBe('done');
  });

  it('moves the cursor left, right and to a column within a line', () => {
    expect(render('abc\x1b[2DX\x1b[3CY\x1b[1GZ')).toBe('ZXc  Y');
  });

  it('redraws a line above with cursor up + erase (a spinner on its own line)', () => {
    expect(render('answer\r\n⠋ working\r\n\x1b[1A\x1b[2K\rresult\r\n')).toBe('answer\nresult\n');
  });

  it('erases the display: below the cursor, and all (clear)', () => {
    expect(render('one\r\ntwo\r\nthree\x1b[1A\x1b[1G\x1b[J')).toBe('one\n');
    expect(render('old\r\nstuff\x1b[H\x1b[2Jnew')).toBe('new');
  });

  it('expands tabs to the next multiple of 8 and ignores colours and titles', () => {
    expect(render('a\tb\x1b[31mc\x1b[0m\x1b]0;t\x07')).toBe('a       bc');
  });

  it('keeps a UTF-8 character split across writes', () => {
    const r = new TextRenderer();
    const b = new TextEncoder().encode('é🌱');
    r.write(b.subarray(0, 1));
    r.write(b.subarray(1, 4));
    r.write(b.subarray(4));
    expect(r.toString()).toBe('é🌱');
  });

  it('renders text written at the end of a line as put() places each character', () => {
    // Text appended to a line takes a shortcut (one string, no characters array): every edit
    // after it must see the same line.
    expect(render('abc\rX')).toBe('Xbc');
    expect(render('abc\bd')).toBe('abd');
    expect(render('abc\x1b[2D\x1b[1P')).toBe('ac');
    expect(render('abc\x1b[2D\x1b[2@')).toBe('a  bc');
    expect(render('abc\x1b[3D\x1b[2X')).toBe('  c');
    expect(render('ab\x1b7cd\x1b8X')).toBe('abXd');
    expect(TextRenderer.render(Uint8Array.from([0x61, 0xff, 0x62]))).toBe('a\ufffdb');
    expect(render('main\x1b[?1049halt\x1b[?1049l!')).toBe('main!');
    const r = new TextRenderer();
    r.write('one\r\ntwo');
    expect(r.currentLine()).toBe('two');
    expect(r.linesToCursor()).toEqual(['one', 'two']);
    expect(r.lastRows(2)).toBe('onetwo');
  });

  it('wraps at the width whether text comes whole or in pieces', () => {
    const whole = new TextRenderer({ cols: 4 });
    whole.write('abcdef');
    const pieces = new TextRenderer({ cols: 4 });
    pieces.write('abc');
    pieces.write('def');
    expect(whole.toString()).toBe('abcd\nef');
    expect(pieces.toString()).toBe('abcd\nef');
  });

  it('renders the same however the output is cut into writes', () => {
    const streams = [
      'plain line\r\nnext line\r\n',
      'é🌱 mixed ascii\r\nabc\rX\tY\bZ\x1b[K\r\n',
      'progress 10%\rprogress 50%\r\x1b[2Kdone\r\n\x1b[1Aover\r\n',
      'a\xc2\x85b\xffc\x1b[31mred\x1b[0m\r\n',
      'wrap me please\r\nsecond line here',
    ];
    for (const s of streams) {
      const bytes = encode(s);
      for (const cols of [undefined, 5]) {
        const opts = cols ? { cols } : {};
        const whole = new TextRenderer(opts);
        whole.write(bytes);
        const expected = whole.toString();
        const byByte = new TextRenderer(opts);
        for (let i = 0; i < bytes.length; i++) byByte.write(bytes.subarray(i, i + 1));
        expect(byByte.toString()).toBe(expected);
        for (let cut = 1; cut < bytes.length; cut++) {
          const two = new TextRenderer(opts);
          two.write(bytes.subarray(0, cut));
          two.write(bytes.subarray(cut));
          expect(two.toString()).toBe(expected);
        }
      }
    }
  });
});

/** The stream's bytes: characters above U+00FF as UTF-8, the others as the byte they name. */
function encode(s: string): Uint8Array {
  const out: number[] = [];
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c <= 0xff) out.push(c);
    else out.push(...new TextEncoder().encode(ch));
  }
  return Uint8Array.from(out);
}
