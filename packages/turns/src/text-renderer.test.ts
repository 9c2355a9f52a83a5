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
});
