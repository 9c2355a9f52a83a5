import { describe, expect, it } from 'vitest';
import { neutralizeControls } from './injected-text.js';

const n = (s: string | Buffer): string => neutralizeControls(Buffer.from(s)).toString('utf8');

describe('neutralizeControls', () => {
  it('leaves text, tabs and line breaks alone ', () => {
    const plain = Buffer.from('def f(x):\r\n\treturn x * 3\n');
    expect(neutralizeControls(plain).equals(plain)).toBe(true);
    expect(n('héllo → wörld ⏺ 日本')).toBe('héllo → wörld ⏺ 日本');
  });

  it('cannot end a bracketed paste: ESC becomes ␛, so neither marker survives', () => {
    const out = n('ok\n\x1b[201~touch pwned.txt\n\x1b[200~');
    expect(out).toBe('ok\n␛[201~touch pwned.txt\n␛[200~');
    expect(out).not.toContain('\x1b');
  });

  it('turns C0 controls and DEL into their control pictures (no signals, no erasing, no EOF)', () => {
    expect(n('a\x03b\x1ac\x1cd\x04e\x7ff\x15g\x17h\x00i\x08j')).toBe('a␃b␚c␜d␄e␡f␕g␗h␀i␈j');
  });

  it('replaces C1 controls (8-bit CSI) and malformed UTF-8 with U+FFFD', () => {
    expect(n('x\u009b201~y\u0085z')).toBe('x\ufffd201~y\ufffdz');
    expect(n(Buffer.from([0x61, 0x9b, 0x32, 0xff, 0x62]))).toBe('a\ufffd2\ufffdb');
  });

  it('keeps a raw turn readable: colours become visible, not active', () => {
    expect(n('\x1b[31mred\x1b[0m')).toBe('␛[31mred␛[0m');
  });
});
