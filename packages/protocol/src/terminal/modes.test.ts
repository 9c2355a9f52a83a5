import { describe, expect, it } from 'vitest';
import { ModeTracker } from './modes.js';

describe('ModeTracker', () => {
  it('leaves the alternate screen only when the output entered it', () => {
    const m = new ModeTracker();
    expect(m.restoreSequence()).not.toContain('?1049l');
    m.feed(Buffer.from('hello \x1b[?1049h\x1b[?25l screen'));
    expect(m.restoreSequence()).toContain('\x1b[?1049l');
    expect(m.restoreSequence().endsWith('\x1b[?25h')).toBe(true);
    m.feed(Buffer.from('\x1b[?1049l'));
    expect(m.restoreSequence()).not.toContain('?1049l');
  });

  it('follows sequences split across chunks and combined modes', () => {
    const m = new ModeTracker();
    m.feed(Buffer.from('abc\x1b'));
    m.feed(Buffer.from('[?10'));
    m.feed(Buffer.from('49;1h rest'));
    expect(m.isOn(1049)).toBe(true);
    expect(m.isOn(1)).toBe(true);
    expect(m.restoreSequence()).toContain('\x1b[?1l\x1b>');
    m.feed(Buffer.from('\x1b[?1;1049l'));
    expect(m.isOn(1049)).toBe(false);
  });

  it('always turns off mouse reporting and bracketed paste', () => {
    const seq = new ModeTracker().restoreSequence();
    for (const mode of ['1000', '1002', '1003', '1006', '2004'])
      expect(seq).toContain(`\x1b[?${mode}l`);
  });
});
