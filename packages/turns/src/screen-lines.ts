// Helpers shared by the classifier and the answer extractor.
import type { LineRegex } from './user-regex.js';

/** Splits screen text into right-trimmed lines without the trailing blank ones. */
export function screenLines(screen: string | readonly string[]): string[] {
  const raw = typeof screen === 'string' ? screen.split(/\r?\n/) : [...screen];
  const lines = raw.map((l) => l.replace(/\s+$/u, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text without its whitespace: echoes are compared so (wraps, indents, a box's padding). */
export function compact(s: string): string {
  return s.replace(/\s+/gu, '');
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

/** A row that is a horizontal border filling the terminal: a rule, or a box's top or bottom
 * whose right corner did not fit (right-trimmed, so nothing follows the last dash). */
const BORDER_HEAD = /^\s*[╭╰┌└]?[─━═╌╍┄┅┈┉]+$/u;
/** The rest of such a border wrapped onto the next row: more dashes, maybe the right corner. */
const BORDER_TAIL = /^[─━═╌╍┄┅┈┉]*[╮╯┐┘]?$/u;
/** Characters that take no cell of their own (combining marks and variation selectors, zero-width). */
const ZERO_WIDTH = /[\p{M}\u200b-\u200f\u2060]/gu;

function cells(line: string): number {
  let n = 0;
  for (const _ of line.replace(ZERO_WIDTH, '')) n++;
  return n;
}

/**
 * Rows that continue a horizontal border wider than the terminal: a rule or box top drawn one
 * column too wide, or drawn before the terminal was narrowed (the terminal reflows it), wraps
 * its tail onto the next row. Such a tail follows a border row that spans the whole screen —
 * no row is wider — which no answer text does; a rule the agent drew to fit is never followed
 * by one. Returns the indices of the tail rows.
 */
export function wrappedBorderTails(lines: readonly string[]): Set<number> {
  const tails = new Set<number>();
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = lines[i]!;
    if (!BORDER_HEAD.test(head) || lines[i + 1] === '' || !BORDER_TAIL.test(lines[i + 1]!)) {
      continue;
    }
    // Every border character takes one cell, so the head's length is its width; a row with
    // more characters than that may still be narrower (wide or combining characters).
    const width = head.length;
    if (lines.some((l) => l.length > width && cells(l) > width)) continue;
    // A border wider than two screens wraps more than once: each full tail is a head again.
    let j = i + 1;
    tails.add(j);
    while (j + 1 < lines.length && lines[j]!.length === width && /[─━═╌╍┄┅┈┉]$/u.test(lines[j]!)) {
      if (lines[j + 1] === '' || !BORDER_TAIL.test(lines[j + 1]!)) break;
      tails.add(++j);
    }
    i = j;
  }
  return tails;
}

/**
 * The row a box's border at `row` starts on: `row` itself, or the head of a border wider than
 * the terminal whose wrapped tail `row` is.
 */
export function borderStart(row: number, tails: ReadonlySet<number>): number {
  let i = row;
  while (i > 0 && tails.has(i)) i--;
  return i;
}

/**
 * The top row of the input box whose top border starts at `top`: wrapped borders left right
 * above it (the remains of a box drawn before the terminal was narrowed, which the agent's
 * redraw did not erase) belong to the box, not to the answer above.
 */
export function boxTop(top: number, tails: ReadonlySet<number>): number {
  let i = top;
  while (i > 0 && tails.has(i - 1)) i = borderStart(i - 1, tails);
  return i;
}

/**
 * Screen presets with an `inputTop` draw their input line directly under it (a rule or a box
 * corner); an input-looking line without it is history (an echoed `> question`), not the box.
 * A border wider than the terminal wraps: its tail row sits between the input line and its
 * head, which is the one `inputTop` must match.
 */
export function framedInput(
  lines: readonly string[],
  i: number,
  inputTop: readonly LineRegex[],
  screen: boolean,
  tails: ReadonlySet<number> = NO_ROWS,
): boolean {
  if (!screen || inputTop.length === 0) return true;
  return i > 0 && firstMatch(inputTop, lines[borderStart(i - 1, tails)]!) >= 0;
}

const NO_ROWS: ReadonlySet<number> = new Set();
