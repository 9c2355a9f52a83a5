import { describe, expect, it } from 'vitest';
import { MAX_OSC_PAYLOAD_BYTES, OscScanner } from './osc-scanner.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('OscScanner', () => {
  it('finds titles and status reports ended by BEL or ST, among other output', () => {
    const s = new OscScanner();
    expect(
      s.scan(bytes('a\x1b[1mb\x1b]0;✳ Claude Code\x07c\x1b]7501;state=working:app=codex\x1b\\d')),
    ).toEqual(['0;✳ Claude Code', '7501;state=working:app=codex']);
  });

  it('follows a sequence split between chunks, byte by byte', () => {
    const s = new OscScanner();
    const all = bytes('x\x1b]0;⠦ project\x07y\x1b]2;◇  Ready (p)\x1b\\');
    const found: string[] = [];
    for (const b of all) found.push(...s.scan(Uint8Array.of(b)));
    expect(found).toEqual(['0;⠦ project', '2;◇  Ready (p)']);
  });

  it('skips a payload too long to be a status, and sequences that were cut off', () => {
    const s = new OscScanner();
    const long = `\x1b]52;c;${'A'.repeat(MAX_OSC_PAYLOAD_BYTES)}\x07`;
    expect(s.scan(bytes(`${long}\x1b]0;cut\x18\x1b]0;ok\x07`))).toEqual(['0;ok']);
  });
});
