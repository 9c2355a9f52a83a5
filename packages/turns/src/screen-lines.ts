// Helpers shared by the classifier and the answer extractor.
import type { LineRegex } from './user-regex.js';

/** Splits screen text into right-trimmed lines without the trailing blank ones. */
export function screenLines(screen: string | readonly string[]): string[] {
  const raw = typeof screen === 'string' ? screen.split(/\r?\n/) : [...screen];
  const lines = raw.map((l) => l.replace(/\s+$/u, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Index of the first regex in `res` matching `line`, or -1. */
export function firstMatch(res: readonly LineRegex[], line: string): number {
  for (let i = 0; i < res.length; i++) if (res[i]!.test(line)) return i;
  return -1;
}

/** Whether a line-preset prompt regex matches a screen line (screens are right-trimmed, and
 * prompts end with a space, so the line is also tried with one space appended). */
export function promptMatches(pattern: LineRegex, line: string): boolean {
  return pattern.test(line) || pattern.test(`${line} `);
}

/**
 * Screen presets with an `inputTop` draw their input line directly under it (a rule or a box
 * corner); an input-looking line without it is history (an echoed `> question`), not the box.
 */
export function framedInput(
  lines: readonly string[],
  i: number,
  inputTop: readonly LineRegex[],
  screen: boolean,
): boolean {
  if (!screen || inputTop.length === 0) return true;
  return i > 0 && firstMatch(inputTop, lines[i - 1]!) >= 0;
}
