// Two reads of a blocked screen are one question when the draw explains their difference: the
// real agents' approval dialogs (test/screens) read whole and half-drawn.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMenu, type Menu } from './menu.js';
import { sameDialog } from './same-dialog.js';
import { SCREENS_DIR } from './test-support/screen-cases.js';

const screen = (file: string): string => fs.readFileSync(path.join(SCREENS_DIR, file), 'utf8');
const menuOf = (text: string): Menu => {
  const m = readMenu(text);
  if (!m) throw new Error(`no question read from:\n${text}`);
  return m;
};
/** The screen with its question's line not drawn yet (or already taken away). */
const withoutLine = (text: string, line: string): string => {
  expect(text).toContain(line);
  return text
    .split('\n')
    .filter((l) => !l.includes(line))
    .join('\n');
};

/** Approval dialogs of the real agents and the line each asks its question on. */
const DIALOGS: [string, string][] = [
  ['qwen-approve-shell.txt', "Allow execution of: 'touch'?"],
  ['qwen-approve-edit.txt', 'Apply this change?'],
  ['codex-approve-command.txt', 'Would you like to run the following command?'],
  ['gemini-approve-shell.txt', 'Allow execution of [Shell]?'],
  ['copilot-approve-shell.txt', 'Do you want to run this command?'],
];

describe('sameDialog on the real agents’ approval dialogs', () => {
  for (const [file, question] of DIALOGS) {
    it(`${file}: read whole, again, and half-drawn without its question is one dialog`, () => {
      const text = screen(file);
      const whole = menuOf(text);
      expect(whole.question).toContain(question);
      const half = menuOf(withoutLine(text, question));
      expect(half.question).not.toContain(question);
      expect(sameDialog(whole, menuOf(text))).toBe(true);
      expect(sameDialog(half, whole)).toBe(true);
      expect(sameDialog(whole, half)).toBe(true);
    });
  }

  it('Qwen Code: the next command’s dialog, below the first one’s result, is another', () => {
    const first = screen('qwen-approve-shell.txt');
    const next = first
      .replace("Allow execution of: 'touch'?", "Allow execution of: 'rm'?")
      .replace(
        '? Shell touch approved.txt (Run a command) ←',
        '? Shell rm old.txt (Run a command) ←',
      )
      .replace('     touch approved.txt', '     rm old.txt');
    expect(sameDialog(menuOf(first), menuOf(next))).toBe(false);
    // Half-drawn, it is still another question.
    const half = menuOf(withoutLine(next, "Allow execution of: 'rm'?"));
    expect(sameDialog(menuOf(first), half)).toBe(false);
  });

  it('Qwen Code: its scrollbar beside the dialog (track `│` on one row, thumb `█` on others) is not read', () => {
    // CI read the half-drawn dialog with the track beside its tool line and told it twice.
    const WIDTH = 120;
    const scrolled = (text: string, bar: (line: string) => string): string =>
      text
        .split('\n')
        .map((l) => `${l.padEnd(WIDTH - 1)}${bar(l)}`)
        .join('\n');
    const text = screen('qwen-approve-shell.txt');
    const track = (l: string) => (l.includes('? Shell') ? '│' : '█');
    const whole = menuOf(scrolled(text, () => '█'));
    const half = menuOf(scrolled(withoutLine(text, "Allow execution of: 'touch'?"), track));
    expect(whole.question).toBe("Allow execution of: 'touch'?");
    expect(half.question).toBe('? Shell touch approved.txt (Run a command) ←');
    expect(sameDialog(half, whole)).toBe(true);
    expect(sameDialog(whole, half)).toBe(true);
    expect(sameDialog(half, menuOf(text))).toBe(true);
  });

  it('another command under the same question, or another file, is another dialog', () => {
    const base = { question: 'Do you want to proceed?', style: 'numbered' as const };
    const ls = { ...base, detail: ['Bash command', 'ls'] };
    expect(sameDialog(ls, { ...base, detail: ['Bash command', 'rm -rf build'] })).toBe(false);
    expect(sameDialog(ls, { ...base, detail: ['Bash command', 'ls -la'] })).toBe(false);
    expect(sameDialog({ ...base, detail: ['ls'] }, { ...base, detail: ['rm'] })).toBe(false);
    // Another question over the same lines (aider's next file, its output above the same).
    const add = (file: string) => ({
      question: `Add ${file} to the chat?`,
      detail: ['Added app.py to the chat.'],
      style: 'letters' as const,
    });
    expect(sameDialog(add('util.py'), add('test.py'))).toBe(false);
  });

  it('an agent’s cursor at a line’s end in one draw and not the next is the same line', () => {
    const a = {
      question: 'Allow it to run `ls`? Why?   █',
      detail: ['ls -la  '],
      style: 'numbered' as const,
    };
    const b = {
      question: 'Allow it to run `ls`? Why?',
      detail: ['ls -la'],
      style: 'numbered' as const,
    };
    expect(sameDialog(a, b)).toBe(true);
  });
});
