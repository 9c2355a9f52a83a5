import { describe, expect, it } from 'vitest';
import { DetachScanner } from './detach-scanner.js';
import { detachKeyEncodings, parseDetachKey } from './detach-key.js';

/** Feeds reads one by one, as stdin delivers them; returns what reached the program. */
function typed(reads: string[], key = 'ctrl-]'): { sent: string[]; detached: boolean } {
  const scanner = new DetachScanner(detachKeyEncodings(parseDetachKey(key)));
  const sent = reads.map((r) => {
    const chunk = Buffer.from(r, 'latin1');
    return chunk.subarray(0, scanner.scan(chunk)).toString('latin1');
  });
  return { sent, detached: scanner.detached };
}

describe('DetachScanner', () => {
  it('passes every read through whole when the detach key is not typed', () => {
    expect(typed(['ls -l', '\r', '\x1b', '[A', '\x03'])).toEqual({
      sent: ['ls -l', '\r', '\x1b', '[A', '\x03'],
      detached: false,
    });
  });

  it('sends what was typed before the key in the same read, and nothing after it', () => {
    expect(typed(['ab\x1dcd'])).toEqual({ sent: ['ab'], detached: true });
  });

  it('sends nothing from reads after the key (typed while the detach is under way)', () => {
    expect(typed(['hello', '\x1d', 'more', 'x\x1dy'])).toEqual({
      sent: ['hello', '', '', ''],
      detached: true,
    });
  });

  it('finds the key at the very start or end of a read', () => {
    expect(typed(['abc\x1d'])).toEqual({ sent: ['abc'], detached: true });
    expect(typed(['abc', '\x1dabc'])).toEqual({ sent: ['abc', ''], detached: true });
  });

  it('finds the kitty and modifyOtherKeys spellings of the key in a later read', () => {
    expect(typed(['q', 'w\x1b[93;5u', 'e'])).toEqual({ sent: ['q', 'w', ''], detached: true });
    expect(typed(['\x1b[A', '\x1b[27;5;93~'])).toEqual({ sent: ['\x1b[A', ''], detached: true });
  });

  it('does not take an Escape at the end of a read for the start of the key', () => {
    expect(typed(['vim\x1b', ':wq\r'])).toEqual({ sent: ['vim\x1b', ':wq\r'], detached: false });
  });

  it('honours the configured key, and lets the default one through then', () => {
    expect(typed(['a\x1db', 'c\x11d'], 'ctrl-q')).toEqual({
      sent: ['a\x1db', 'c'],
      detached: true,
    });
  });
});
