import { describe, expect, it } from 'vitest';
import { splitFocusReports } from './focus-reports.js';

describe('focus reports in the input', () => {
  it('leaves chunks without them alone, arrow keys and Escape included', () => {
    expect(splitFocusReports(Buffer.from('hello'))).toBeNull();
    expect(splitFocusReports(Buffer.from('\x1b[A\x1b[D\x1b'))).toBeNull();
    expect(splitFocusReports(Buffer.from('\x1b[Ix'.slice(0, 2)))).toBeNull();
  });

  it('takes every report out, in order, and keeps the keystrokes around them', () => {
    const r = splitFocusReports(Buffer.from('a\x1b[Ib\x1b[O\x1b[A\x1b[I'));
    expect(r?.changes).toEqual([true, false, true]);
    expect(r?.data.toString()).toBe('ab\x1b[A');
    const only = splitFocusReports(Buffer.from('\x1b[O'));
    expect(only?.changes).toEqual([false]);
    expect(only?.data.length).toBe(0);
  });
});
