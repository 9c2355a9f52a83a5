import { describe, expect, it } from 'vitest';
import { InputTracker } from './input-tracker.js';

describe('InputTracker', () => {
  it('submits on Enter (\\r, \\n, or \\r\\n once) with what was typed', () => {
    const t = new InputTracker();
    expect(t.feed('ls -la\r')).toEqual([{ type: 'submit', text: 'ls -la' }]);
    expect(t.feed('a\r\nb\n')).toEqual([
      { type: 'submit', text: 'a' },
      { type: 'submit', text: 'b' },
    ]);
  });

  it('applies backspace, Ctrl-U and Ctrl-W, and ignores cursor keys', () => {
    const t = new InputTracker();
    t.feed('helo\x7flo wor\x17world\x1b[D\x1bOA');
    expect(t.pending).toBe('hello world');
    t.feed('\x15x');
    expect(t.pending).toBe('x');
  });

  it('marks a submit whose line keys it cannot follow edited (cursor and history keys, Tab, Alt+key)', () => {
    const t = new InputTracker();
    expect(t.feed('\x1b[A\r')).toEqual([{ type: 'submit', text: '', edited: true }]);
    expect(t.feed('ls\r')).toEqual([{ type: 'submit', text: 'ls' }]);
    for (const key of ['\x1bOA', '\x1b[D', '\x1b[3~', '\t', '\x12', '\x1b.']) {
      expect(t.feed(`x${key}`)).toEqual([]);
      expect(t.feed('\r')).toEqual([{ type: 'submit', text: 'x', edited: true }]);
    }
    // A bracketed paste and Ctrl-C's fresh line are followed.
    expect(t.feed('\x1b[D\x03\x1b[200~a\x1b[201~\r')).toEqual([
      { type: 'interrupt' },
      { type: 'submit', text: 'a' },
    ]);
  });

  it('keeps newlines inside a bracketed paste, even when the paste is split across writes', () => {
    const t = new InputTracker();
    expect(t.feed('\x1b[200~line 1\r\nli')).toEqual([]);
    expect(t.feed('ne 2\x1b[2')).toEqual([]);
    expect(t.feed('01~\r')).toEqual([{ type: 'submit', text: 'line 1\nline 2' }]);
  });

  it('reports Ctrl-C as an interrupt and a lone Esc key press as escape', () => {
    const t = new InputTracker();
    expect(t.feed('abc\x03')).toEqual([{ type: 'interrupt' }]);
    expect(t.pending).toBe('');
    expect(t.feed('\x1b')).toEqual([{ type: 'escape' }]);
    expect(t.feed('\x1b[A')).toEqual([]);
  });

  it('decodes UTF-8 typed text split across writes', () => {
    const t = new InputTracker();
    const b = new TextEncoder().encode('héllo\r');
    expect(t.feed(b.subarray(0, 2))).toEqual([]);
    expect(t.feed(b.subarray(2))).toEqual([{ type: 'submit', text: 'héllo' }]);
  });
});

describe('InputTracker on large pastes', () => {
  // A quadratic scan of this paste takes minutes, a linear one milliseconds: the test's own
  // timeout (30 s) is the bound, far from both, so a loaded machine cannot fail it (it measured
  // the wall clock and asserted under 5 s before).
  it('tracks a 1 MiB bracketed paste in linear time and submits it (capped)', () => {
    const t = new InputTracker();
    const body = 'x'.repeat(1024 * 1024);
    const events = t.feed(`\x1b[200~${body}\x1b[201~\r`);
    expect(events).toHaveLength(1);
    const submit = events[0] as { type: 'submit'; text: string };
    expect(submit.type).toBe('submit');
    expect(body.startsWith(submit.text)).toBe(true);
    expect(submit.text.length).toBeGreaterThan(0);
  });

  it('keeps an ESC inside a paste that is not the end marker', () => {
    const t = new InputTracker();
    const events = t.feed('\x1b[200~a\x1b[20b\x1b[201~\r');
    expect(events).toEqual([{ type: 'submit', text: 'a\x1b[20b' }]);
  });
});
