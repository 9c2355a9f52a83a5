// A line preset's prompt on a line of output: whether the pattern matches it, where the prompt
// begins on its line, and what follows it.
import { AnsiStripper } from './ansi-stripper.js';
import { lastIndexOfBytes, startsWithBytes } from './bytes.js';
import type { TextRenderer } from './text-renderer.js';
import type { LineRegex } from './user-regex.js';

/** Readline (bash, Python) switches bracketed paste on just before it draws the prompt. */
const BRACKETED_PASTE_ON = new TextEncoder().encode('\x1b[?2004h');
/** zsh's PROMPT_SP and fish mark output left without a final newline: a mark (`%`/`#`, `⏎`),
 * spaces to the end of the row, CR, a blank (or the mark again), CR — then the prompt. */
const MISSING_NEWLINE_MARK = /[%#⏎]? {8,}\r[%#⏎]? \r*$/u;
const SGR_RESETS = [new TextEncoder().encode('\x1b[0m'), new TextEncoder().encode('\x1b[m')];

/** The prompt text if the pattern matches the line, or the part after its last carriage return. */
export function matchPrompt(pattern: LineRegex, line: string): string | null {
  // Trailing CRs dropped by hand: a regex replace here ran once per output line.
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 0x0d) end--;
  const full = end === line.length ? line : line.slice(0, end);
  if (pattern.test(full)) return full.slice(full.lastIndexOf('\r') + 1);
  const cr = full.lastIndexOf('\r');
  if (cr >= 0) {
    const tail = full.slice(cr + 1);
    if (pattern.test(tail)) return tail;
  }
  return null;
}

/** Whether a continuation prompt's pattern matches the line (a right-trimmed one too). */
export function matchesContinuation(more: LineRegex, line: string): boolean {
  return matchPrompt(more, line) !== null || matchPrompt(more, `${line.trimEnd()} `) !== null;
}

export function withoutLeadingCr(s: string): string {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) === 0x0d) i++;
  return s.slice(i);
}

/**
 * Where the prompt begins on its (unterminated) line, as an output offset, and the prompt's
 * text: the line ends with the previous prompt's text (prompts rarely change), or else the
 * prompt follows readline's bracketed-paste switch (`ESC[?2004h`, written just before it is
 * drawn); a missing-newline mark in front of it (zsh's PROMPT_SP `%`, fish's `⏎`) belongs to it.
 * Without either, the whole line is the prompt. `raw` is the stored output from offset `from`
 * to the line's end (null when not stored: the line's start, the previous prompt kept).
 */
export function promptStart(
  raw: Uint8Array | null,
  from: number,
  line: string,
  lineStart: number,
  prevPrompt: string,
): { at: number; prompt: string } {
  if (!raw) return { at: lineStart, prompt: prevPrompt };
  // ends[b]: characters of stripped text the first b raw bytes make.
  const stripper = new AnsiStripper();
  const ends = new Int32Array(raw.length + 1);
  for (let i = 0; i < raw.length; i++)
    ends[i + 1] = ends[i]! + stripper.push(raw.subarray(i, i + 1)).length;
  const total = ends[raw.length]!;
  let tail = -1;
  if (prevPrompt !== '' && line.endsWith(prevPrompt)) tail = prevPrompt.length;
  else {
    const at = lastIndexOfBytes(raw, BRACKETED_PASTE_ON);
    if (at >= 0 && total > ends[at]!) tail = total - ends[at]!;
  }
  if (tail < 0 || tail > line.length) return { at: lineStart, prompt: withoutLeadingCr(line) };
  const mark = MISSING_NEWLINE_MARK.exec(line.slice(0, line.length - tail));
  if (mark) tail = line.length - mark.index;
  const prompt = withoutLeadingCr(line.slice(line.length - tail));
  const target = total - tail;
  if (target <= 0) return { at: lineStart, prompt };
  let b = 0;
  while (ends[b]! < target) b++;
  // A colour reset right after the text ends that text's colour: it goes with it.
  for (const reset of SGR_RESETS) if (startsWithBytes(raw, b, reset)) b += reset.length;
  return { at: from + b, prompt };
}

/**
 * What follows the prompt on the echo's line (its wrapped rows joined; output left without a
 * final newline may come before the prompt), or null when the line does not show the last
 * prompt seen (the input stays what was typed).
 */
export function inputOnLine(echo: TextRenderer, prevPrompt: string): string | null {
  // What the prompt draws last: zsh and fish draw a missing-newline mark and a CR first, fish
  // a CR after it (then moves the cursor back to its end).
  const drawn = prevPrompt.replace(/\r+$/u, '');
  const prompt = drawn.slice(drawn.lastIndexOf('\r') + 1);
  const line = echo.linesToCursor().join('');
  const at = prompt.trim() === '' ? -1 : line.indexOf(prompt.trimEnd());
  return at < 0 ? null : line.slice(at + prompt.length).trimEnd();
}
