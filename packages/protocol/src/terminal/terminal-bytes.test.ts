import { describe, expect, it } from 'vitest';
import { ModeTracker } from './modes.js';
import { blindRestoreBytes, terminalRestoreBytes } from './terminal-bytes.js';

/** A TUI's output: alternate screen, hidden cursor, mouse reporting, bracketed paste. */
const TUI_OUTPUT = '\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?2004h\x1b[?1hscreen';

function afterOutput(text: string): ModeTracker {
  const modes = new ModeTracker();
  modes.feed(Buffer.from(text));
  return modes;
}

describe('terminalRestoreBytes', () => {
  it('turns off what the session left on, shows the cursor, then moves below its screen', () => {
    const bytes = terminalRestoreBytes(afterOutput(TUI_OUTPUT), { rows: 40, moveBelow: true });
    for (const off of ['\x1b[?1049l', '\x1b[?1000l', '\x1b[?2004l', '\x1b[?1l', '\x1b[?25h'])
      expect(bytes).toContain(off);
    // Leaving the alternate screen puts back the main screen's cursor: the move comes after it.
    expect(bytes.endsWith('\x1b[?25h\x1b[40;1H\r\n')).toBe(true);
    expect(bytes.indexOf('\x1b[?1049l')).toBeLessThan(bytes.indexOf('\x1b[40;1H'));
  });

  it('leaves the cursor where the session put it when the session itself ended', () => {
    const bytes = terminalRestoreBytes(afterOutput(TUI_OUTPUT), { rows: 40, moveBelow: false });
    expect(bytes.endsWith('\x1b[?25h')).toBe(true);
    expect(bytes).not.toMatch(/\x1b\[\d+;1H/);
  });

  it('does not leave a main screen it never entered, and moves to row 1 of a sizeless terminal', () => {
    const bytes = terminalRestoreBytes(afterOutput('$ ls\r\n'), { rows: 0, moveBelow: true });
    expect(bytes).not.toContain('\x1b[?1049l');
    expect(bytes.endsWith('\x1b[1;1H\r\n')).toBe(true);
  });

  it('without knowing the modes, turns off everything a session may have turned on', () => {
    const bytes = blindRestoreBytes({ rows: 24, moveBelow: true });
    for (const off of ['\x1b[?1049l', '\x1b[?1000l', '\x1b[?1006l', '\x1b[?2004l', '\x1b[?1l'])
      expect(bytes).toContain(off);
    expect(bytes.endsWith('\x1b[?25h\x1b[24;1H\r\n')).toBe(true);
  });
});
