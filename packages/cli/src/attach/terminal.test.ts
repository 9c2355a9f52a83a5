import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModeTracker, blindRestoreBytes } from '@clippy/protocol';
import { TerminalGuard } from './terminal.js';

/** A TUI's output: alternate screen, hidden cursor, mouse reporting, bracketed paste. */
const TUI_OUTPUT = '\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?2004h\x1b[?1hscreen';

describe('TerminalGuard', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A terminal whose output lands in a file and whose raw mode is recorded. */
  function fakeTerminal() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-term-'));
    dirs.push(dir);
    const file = path.join(dir, 'tty');
    const fd = fs.openSync(file, 'w');
    const rawModes: boolean[] = [];
    const stdin = { isTTY: true, setRawMode: (on: boolean) => rawModes.push(on) };
    const stdout = { isTTY: true, rows: 30, columns: 100, fd };
    const guard = new TerminalGuard(
      stdin as unknown as NodeJS.ReadStream,
      stdout as unknown as NodeJS.WriteStream,
    );
    const written = () => fs.readFileSync(file, 'latin1');
    return { guard, rawModes, written, close: () => fs.closeSync(fd) };
  }

  it('restores once, on whichever way out comes first: cooked mode, modes off, cursor below', () => {
    const t = fakeTerminal();
    t.guard.enterRaw();
    t.guard.modes.feed(Buffer.from(TUI_OUTPUT));
    t.guard.restore();
    t.guard.dispose();
    t.guard.restore({ leaveScreen: false });
    t.close();
    expect(t.rawModes).toEqual([true, false]);
    const out = t.written();
    expect(out.split('\x1b[?1049l')).toHaveLength(2);
    expect(out).toContain('\x1b[?1000l');
    expect(out.endsWith('\x1b[?25h\x1b[30;1H\r\n')).toBe(true);
  });

  it('keeps the cursor where it is when the session ended, or when raw mode was never entered', () => {
    const ended = fakeTerminal();
    ended.guard.enterRaw();
    ended.guard.restore({ leaveScreen: false });
    expect(ended.written()).toBe(new ModeTracker().restoreSequence());
    ended.close();

    const early = fakeTerminal();
    early.guard.dispose();
    expect(early.rawModes).toEqual([]);
    expect(early.written()).toBe(new ModeTracker().restoreSequence());
    early.close();
  });

  it('direct attach: restores every mode blindly unless told the daemon gave the terminal back', () => {
    const failed = fakeTerminal();
    failed.guard.enterRaw();
    failed.guard.outputBypassed = true;
    failed.guard.restore();
    expect(failed.written()).toBe(blindRestoreBytes({ rows: 30, moveBelow: true }));
    failed.close();

    const given = fakeTerminal();
    given.guard.enterRaw();
    given.guard.outputBypassed = true;
    given.guard.restore({ leaveScreen: false, modesUnknown: false });
    expect(given.written()).toBe(new ModeTracker().restoreSequence());
    given.close();
  });
});
