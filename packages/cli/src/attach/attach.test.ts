import { describe, expect, it } from 'vitest';
import { findDetachKey, parseDetachKey } from './detach-key.js';
import { ModeTracker } from './modes.js';
import { exitStatus } from './ending.js';

describe('detach key', () => {
  it('parses the usual spellings into the control byte', () => {
    expect(parseDetachKey('ctrl-]').byte).toBe(0x1d);
    expect(parseDetachKey('C-]').byte).toBe(0x1d);
    expect(parseDetachKey('^]').byte).toBe(0x1d);
    expect(parseDetachKey('Ctrl+q').byte).toBe(0x11);
    expect(parseDetachKey('ctrl-Q').label).toBe('Ctrl-Q');
  });

  it('refuses keys the program needs, and things that are not control keys', () => {
    expect(() => parseDetachKey('ctrl-c')).toThrow(/interrupt/);
    expect(() => parseDetachKey('ctrl-b')).toThrow(/not allowed/);
    expect(() => parseDetachKey('q')).toThrow(/not a control key/);
    expect(() => parseDetachKey('ctrl-1')).toThrow(/no control character/);
  });

  it('finds the key as a control byte or as kitty / modifyOtherKeys sequences', () => {
    const key = parseDetachKey('ctrl-]');
    expect(findDetachKey(Buffer.from('ab\x1dcd'), key)).toEqual({ index: 2, length: 1 });
    expect(findDetachKey(Buffer.from('x\x1b[93;5u'), key)).toEqual({ index: 1, length: 7 });
    expect(findDetachKey(Buffer.from('\x1b[27;5;93~'), key)).toEqual({ index: 0, length: 10 });
    expect(findDetachKey(Buffer.from('plain text'), key)).toBeNull();
    const q = parseDetachKey('ctrl-q');
    expect(findDetachKey(Buffer.from('\x1b[113;5u'), q)).toEqual({ index: 0, length: 8 });
  });
});

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

describe('exitStatus', () => {
  it('passes codes through and maps signals to 128+signo', () => {
    expect(exitStatus(3, null)).toBe(3);
    expect(exitStatus(0, null)).toBe(0);
    expect(exitStatus(null, 'SIGKILL')).toBe(137);
    expect(exitStatus(null, 'SIGHUP')).toBe(129);
    expect(exitStatus(null, null)).toBe(1);
  });
});
