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

  it('is fast on a 4 MiB paste in 4 KiB chunks', () => {
    const l = new PasteLimiter();
    const body = Buffer.concat([
      Buffer.from('\x1b[200~'),
      Buffer.alloc(4 * 1024 * 1024, 0x61),
      Buffer.from('\x1b[201~\r'),
    ]);
    let out = 0;
    const t = performance.now();
    for (let at = 0; at < body.length; at += 4096)
      out += l.filter(body.subarray(at, at + 4096)).length;
    expect(out).toBe(6 + PASTE_TRACK_BYTES + 7);
    expect(performance.now() - t).toBeLessThan(2_000);
  });
});
