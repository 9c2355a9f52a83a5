import { describe, expect, it } from 'vitest';
import { AnsiStripper, stripAnsi } from './ansi-stripper.js';

const enc = new TextEncoder();

/** Pushes `bytes` split at the given cut points and returns the joined output. */
function pushSplit(bytes: Uint8Array, cuts: number[]): string {
  const s = new AnsiStripper();
  let out = '';
  let prev = 0;
  for (const cut of [...cuts, bytes.length]) {
    out += s.push(bytes.subarray(prev, cut));
    prev = cut;
  }
  return out + s.flush();
}

/** Every kind of sequence the stripper handles, with text around each. */
const MIXED =
  'a\x1b[1;31mred\x1b[0m b\x1b[?2004h c\x1b]0;title\x07d\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\' +
  'e\x1bP1$r0m\x1b\\f\x1b_apc\x1b\\g\x1b7h\x1b8i\x1b(Bj\x1b#8k\x1b=l\x1b[38;2;1;2;3m❯ é 🌱\r\n\tend\b!';
const MIXED_TEXT = 'ared b cdlinkefghijkl❯ é 🌱\r\n\tend\b!';

describe('AnsiStripper', () => {
  it('removes CSI sequences: SGR, private modes, cursor moves, with parameters and intermediates', () => {
    expect(stripAnsi('\x1b[1;32mgreen\x1b[0m \x1b[?25l\x1b[12D\x1b[>4;2m\x1b[2 qx')).toBe(
      'green x',
    );
  });

  it('removes OSC strings ended by BEL and by ST', () => {
    expect(stripAnsi('a\x1b]0;✳ Claude Code\x07b\x1b]9;4;0;\x1b\\c')).toBe('abc');
  });

  it('removes DCS, SOS, PM and APC strings (ended by ST only)', () => {
    expect(
      stripAnsi(
        'a\x1bPq#0;2;0;0;0\x07still dcs\x1b\\b\x1bXsos\x1b\\c\x1b^pm\x1b\\d\x1b_apc\x1b\\e',
      ),
    ).toBe('abcde');
  });

  it('removes single-character and intermediate escapes (ESC 7, ESC =, ESC ( B, ESC # 8)', () => {
    expect(stripAnsi('\x1b7a\x1b8b\x1b=c\x1b>d\x1b(Be\x1b#8f\x1bMg')).toBe('abcdefg');
  });

  it('gives the same text whatever the chunking: every single split point of every sequence', () => {
    const bytes = enc.encode(MIXED);
    expect(pushSplit(bytes, [])).toBe(MIXED_TEXT);
    for (let cut = 1; cut < bytes.length; cut++) expect(pushSplit(bytes, [cut])).toBe(MIXED_TEXT);
  });

  it('gives the same text when fed one byte at a time', () => {
    const bytes = enc.encode(MIXED);
    expect(
      pushSplit(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toBe(MIXED_TEXT);
  });

  it('keeps a multi-byte UTF-8 character whole when it is split across chunks', () => {
    const bytes = enc.encode('🌱é❯');
    const s = new AnsiStripper();
    const parts = [
      s.push(bytes.subarray(0, 1)),
      s.push(bytes.subarray(1, 3)),
      s.push(bytes.subarray(3, 5)),
    ];
    parts.push(s.push(bytes.subarray(5)));
    expect(parts.join('')).toBe('🌱é❯');
    expect(parts[0]).toBe('');
  });

  it('turns invalid UTF-8 into U+FFFD without throwing, and flush() ends a dangling character', () => {
    const s = new AnsiStripper();
    expect(s.push(new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x9d]))).toBe('a\ufffdb');
    expect(s.flush()).toBe('\ufffd');
  });

  it('keeps \\r \\n \\t \\b and drops other C0 controls and DEL', () => {
    expect(stripAnsi('a\x07b\x00c\x0ed\x7fe\r\n\tf\bg')).toBe('abcde\r\n\tf\bg');
  });

  it('executes a line feed that arrives inside a CSI sequence, like a terminal does', () => {
    const s = new AnsiStripper();
    expect(s.push(enc.encode('x\x1b[1\n;2Hy'))).toBe('x\ny');
    expect(s.lastNewlines).toEqual([4]);
  });

  it('reports when it is inside a sequence (a newline byte there is no line end)', () => {
    const s = new AnsiStripper();
    s.push(enc.encode('\x1b]0;tit'));
    expect(s.inSequence).toBe(true);
    expect(s.push(enc.encode('le\n\x07ok'))).toBe('ok');
    expect(s.inSequence).toBe(false);
  });

  it('reports the byte index of every line feed, in plain chunks and around sequences and dropped bytes', () => {
    const s = new AnsiStripper();
    expect(s.push(enc.encode('ab\ncd\r\n'))).toBe('ab\ncd\r\n');
    expect(s.lastNewlines).toEqual([2, 6]);
    expect(s.push(enc.encode('x\x00y\n\x1b[1mé\nz'))).toBe('xy\né\nz');
    expect(s.lastNewlines).toEqual([3, 10]);
    expect(s.push(enc.encode('\x1b[2'))).toBe('');
    expect(s.lastNewlines).toEqual([]);
    expect(s.push(enc.encode('Jq\n'))).toBe('q\n');
    expect(s.lastNewlines).toEqual([2]);
  });
});
