import { describe, expect, it } from 'vitest';
import { PASTE_TRACK_BYTES, PasteLimiter } from './paste-limiter.js';

const feed = (l: PasteLimiter, chunks: string[]) =>
  chunks.map((c) => Buffer.from(l.filter(Buffer.from(c))).toString()).join('');

describe('PasteLimiter', () => {
  it('passes input outside pastes unchanged, and short pastes whole', () => {
    const l = new PasteLimiter(10);
    expect(feed(l, ['hello\r', '\x1b[A', '\x1b[200~short\x1b[201~\r'])).toBe(
      'hello\r\x1b[A\x1b[200~short\x1b[201~\r',
    );
  });

  it('shortens a long paste to its first bytes, keeping both markers', () => {
    const l = new PasteLimiter(4);
    expect(feed(l, ['\x1b[200~abcdefgh', 'ijkl\x1b[201~\r'])).toBe('\x1b[200~abcd\x1b[201~\r');
  });

  it('finds markers split across chunks at any byte', () => {
    const input = 'x\x1b[200~0123456789\x1b[201~y\x1b[200~ab\x1b[201~';
    for (let cut = 1; cut < input.length; cut++) {
      const l = new PasteLimiter(3);
      expect(feed(l, [input.slice(0, cut), input.slice(cut)]), `cut at ${cut}`).toBe(
        'x\x1b[200~012\x1b[201~y\x1b[200~ab\x1b[201~',
      );
    }
  });

  it('passes a lone Esc key press on at once (a write of one ESC), not held as a marker start', () => {
    const l = new PasteLimiter(10);
    expect(feed(l, ['abc\r', '\x1b'])).toBe('abc\r\x1b');
    // An ESC ending a longer write may still start a marker: held for the rest.
    expect(feed(new PasteLimiter(3), ['x\x1b', '[200~abcdef\x1b[201~'])).toBe(
      'x\x1b[200~abc\x1b[201~',
    );
  });

  it('streams a 4 MiB paste in 4 KiB chunks: each chunk is passed or dropped at once, none held', () => {
    // What keeps a long paste linear: every chunk's bytes leave with that chunk (up to the
    // limit) or are dropped; nothing accumulates to be scanned again with the next one.
    const limit = PASTE_TRACK_BYTES;
    const l = new PasteLimiter();
    const chunk = 4096;
    const body = Buffer.concat([
      Buffer.from('\x1b[200~'),
      Buffer.alloc(4 * 1024 * 1024, 0x61),
      Buffer.from('\x1b[201~\r'),
    ]);
    let passed = 0;
    for (let at = 0; at < body.length; at += chunk) {
      const piece = body.subarray(at, at + chunk);
      const out = l.filter(piece).length;
      const last = at + chunk >= body.length;
      // The first chunks go on whole, the paste's end with its marker; between, nothing.
      const expected = last ? 7 : Math.min(piece.length, Math.max(0, 6 + limit - passed));
      expect(out, `chunk at ${at}`).toBe(expected);
      passed += out;
    }
    expect(passed).toBe(6 + limit + 7);
  });
});
