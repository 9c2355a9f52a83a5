import { describe, expect, it } from 'vitest';
import { detachKeyEncodings, findDetachKey, parseDetachKey } from './detach-key.js';

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
    expect(findDetachKey(Buffer.from('ab\x1dcd'), detachKeyEncodings(key))).toEqual({
      index: 2,
      length: 1,
    });
    expect(findDetachKey(Buffer.from('x\x1b[93;5u'), detachKeyEncodings(key))).toEqual({
      index: 1,
      length: 7,
    });
    expect(findDetachKey(Buffer.from('\x1b[27;5;93~'), detachKeyEncodings(key))).toEqual({
      index: 0,
      length: 10,
    });
    expect(findDetachKey(Buffer.from('plain text'), detachKeyEncodings(key))).toBeNull();
    const q = parseDetachKey('ctrl-q');
    expect(findDetachKey(Buffer.from('\x1b[113;5u'), detachKeyEncodings(q))).toEqual({
      index: 0,
      length: 8,
    });
  });
});
