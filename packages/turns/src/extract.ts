import { classifyLines } from './classify.js';
import { DEFAULT_BOTTOM_LINES, ECHO_MIN_PREFIX_CHARS, INPUT_TOP_SCAN_LINES } from './constants.js';
import type { Preset } from './preset-types.js';
import { compilePreset, type CompiledPreset } from './presets.js';
import {
  borderStart,
  compact,
  boxTop,
  firstMatch,
  framedInput,
  promptMatches,
  screenLines,
  wrappedBorderTails,
} from './screen-lines.js';

/**
 * Prompt and box decoration in front of an echoed input line: `> `, `❯ `, `› `, `│  > `, and
 * OpenCode's bar `┃  ` (its messages have no prompt character).
 */
const ECHO_DECORATION = /^\s*(?:(?:│\s*)?[>❯›](?:\s|$)|┃\s)/u;
const LEADING_DECORATION = /^\s*(?:┃\s*)?[\s│]*(?:[>❯›](?:\s|$))?\s*/u;
const TRAILING_BOX = /[\s│┃]+$/u;
/** The time Copilot CLI 1.0 prints at the right of an echoed message (`❯ hello      10:43`). */
const ECHO_TIME = /\s{2,}\d{1,2}:\d{2}(?:\s*[AP]M)?$/u;
/** Bottom border of the box some agents draw around the echoed input (Gemini CLI 0.61 in true
 * colour: a band of half blocks; OpenCode: its bar's last, empty row). */
const ECHO_BOX_BOTTOM = /^\s*(?:╰─|▀{10,}$|┃\s*$)/u;
/** Codex (older) puts a `user` label line above the echoed input. */
const USER_LABEL = /^\s*user\s*$/u;
/** Claude Code shows a long paste as one line: `❯ [Pasted text #1 +20 lines]`. */
const PASTED_ECHO = /^\s*[>❯›]\s.*\[Pasted text #\d+/u;

/** A submitted text as its echo is compared: its non-blank lines, each and all without whitespace. */
export interface TypedForms {
  /** The non-blank lines, trimmed. */
  lines: string[];
  whole: string;
  first: string;
  last: string;
}

/**
 * The forms of the latest texts: a screen is looked at every few milliseconds with the same
 * submitted text (`turn.typed`), and compacting a 100 KB paste each time cost a millisecond a
 * look (half a second for the megabyte a turn may track). A few, for sessions looked at in turn.
 */
const typedMemo = new Map<string, TypedForms>();
/** Texts whose forms are kept: one per session whose turn is open, for a handful of them. */
const TYPED_MEMO_SIZE = 8;

/** `text`'s forms for echo matching (see TypedForms). */
export function typedForms(text: string): TypedForms {
  const kept = typedMemo.get(text);
  if (kept) return kept;
  const lines = text
    .split(/\r?\n|\r/u)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const forms: TypedForms = {
    lines,
    whole: compact(lines.join('')),
    first: compact(lines[0] ?? ''),
    last: compact(lines[lines.length - 1] ?? ''),
  };
  if (typedMemo.size >= TYPED_MEMO_SIZE) typedMemo.delete(typedMemo.keys().next().value!);
  typedMemo.set(text, forms);
  return forms;
}

/** An echoed line without its prompt or box decoration. */
export function normEcho(line: string): string {
  return line
    .replace(LEADING_DECORATION, '')
    .replace(TRAILING_BOX, '')
    .replace(ECHO_TIME, '')
    .replace(TRAILING_BOX, '');
}

/**
 * The agent's answer on a screen: the lines between the echoed `userInput` and the input box,
 * with the preset's chrome lines (spinners, footers, status) dropped and blank edges trimmed.
 * With no echo on screen (empty input), the answer is everything above the input box.
 */
export function extractAnswer(
  screenLines_: string[],
  userInput: string,
  preset: Preset,
  opts: {
    /** Where the answer starts when the echo is not on screen (e.g. the viewport top at submit). */
    fallbackStart?: number;
  } = {},
): string {
  const c = compilePreset(preset);
  const lines = screenLines(screenLines_);
  const tails = wrappedBorderTails(lines);
  const end = answerEnd(lines, c, tails);
  let start = echoEnd(lines, end, userInput, undefined, opts.fallbackStart);
  if (start === 0 && userInput.trim() !== '' && opts.fallbackStart !== undefined) {
    start = Math.min(Math.max(0, opts.fallbackStart), end);
  }
  // A chrome rule wider than the terminal (Gemini's, above its input band) goes with its tail.
  const isChrome = (i: number): boolean => firstMatch(c.chrome, lines[borderStart(i, tails)]!) >= 0;
  const body: string[] = [];
  for (let i = start; i < end; i++) if (!isChrome(i)) body.push(lines[i]!);
  while (body.length > 0 && body[0]!.trim() === '') body.shift();
  while (body.length > 0 && body[body.length - 1]!.trim() === '') body.pop();
  const answer = withoutBullets(body, preset.answerBullet ?? []);
  // A mark alone on the answer's first line (before a table) leaves nothing there.
  if (answer.length > 0 && answer[0]!.trim() === '') answer.shift();
  // TUIs pad with no-break spaces (Claude: "⎿\u00a0 text"); a reader sees spaces.
  return answer.join('\n').replace(/\u00a0/gu, ' ');
}

/**
 * The answer without the agent's block marks (`● `, `• `, `✦ `): a line starting with one
 * loses it, and the lines of its block (indented by the mark's width, or blank) lose that
 * indentation; a line at the left edge that has no mark ends the block.
 */
export function withoutBullets(lines: string[], bullets: readonly string[]): string[] {
  if (bullets.length === 0) return lines;
  let indent = '';
  return lines.map((line) => {
    // A block that opens with a table or a code block leaves its mark alone on its line.
    const bullet = bullets.find((b) => line.startsWith(b) || line === b.trimEnd());
    if (bullet !== undefined) {
      // As wide as the mark is drawn: a variation selector (Qwen Code's `◆︎`) takes no column.
      indent = ' '.repeat([...bullet].filter((ch) => !/\p{M}/u.test(ch)).length);
      return line.slice(bullet.length);
    }
    if (indent !== '' && line.startsWith(indent)) return line.slice(indent.length);
    if (line.trim() !== '') indent = '';
    return line;
  });
}

/** Index of the first line of the input box (the answer ends before it). */
export function answerEnd(
  lines: string[],
  c: CompiledPreset,
  tails: ReadonlySet<number> = wrappedBorderTails(lines),
): number {
  const n = lines.length;
  // The bottom of what is drawn: a tall terminal under a short screen (a TUI that draws from the
  // top, Claude Code's first answer) has blank rows below its input box, which would push the
  // box out of the bottom region (its text then taken for an old echo of the question).
  let drawn = n;
  while (drawn > 0 && lines[drawn - 1]!.trim() === '') drawn--;
  const shown = drawn === n ? lines : lines.slice(0, drawn);
  // A dialog on screen is part of what the agent said; only an input box ends the answer.
  if (shown.length > 0 && classifyLines(shown, c).state === 'blocked') return n;
  const region = c.preset.kind === 'screen' ? c.bottomLines : DEFAULT_BOTTOM_LINES;
  const from = Math.max(0, drawn - region);
  let input = -1;
  for (let i = drawn - 1; i >= from && input < 0; i--) {
    const line = lines[i]!;
    const isInput =
      c.preset.kind === 'line' && c.preset.inputLine === undefined && c.pattern
        ? promptMatches(c.pattern, line)
        : firstMatch(c.inputLine, line) >= 0 &&
          framedInput(lines, i, c.inputTop, c.preset.kind === 'screen', tails);
    if (isInput) input = i;
  }
  if (input >= 0) {
    for (let j = input - 1; j >= Math.max(0, input - INPUT_TOP_SCAN_LINES); j--) {
      const top = borderStart(j, tails);
      if (firstMatch(c.inputTop, lines[top]!) >= 0) return boxAbove(lines, boxTop(top, tails), c);
    }
    return input;
  }
  // A line preset's prompt may not be drawn yet (aider redraws it); its rule still marks the end.
  if (c.preset.kind === 'line') {
    for (let i = drawn - 1; i >= from; i--) if (firstMatch(c.inputTop, lines[i]!) >= 0) return i;
  }
  return n;
}

/** The input box's first row: past the rows above its top border that are the box's (`inputAbove`). */
function boxAbove(lines: string[], top: number, c: CompiledPreset): number {
  let i = top;
  while (i > 0 && firstMatch(c.inputAbove, lines[i - 1]!) >= 0) i--;
  return i;
}

/**
 * The rows of the input box that may hold the text typed in it: the input line, and the rows
 * above its top border that are the box's (`inputAbove`; OpenCode writes its text there), bottom
 * up. Only the input line when the preset has none.
 */
export function inputRows(lines: string[], inputIndex: number, c: CompiledPreset): number[] {
  const rows = [inputIndex];
  if (c.inputAbove.length === 0 || inputIndex < 0) return rows;
  let top = inputIndex - 1;
  while (
    top >= Math.max(0, inputIndex - INPUT_TOP_SCAN_LINES) &&
    firstMatch(c.inputTop, lines[top]!) < 0
  )
    top--;
  if (top < 0 || firstMatch(c.inputTop, lines[top]!) < 0) return rows;
  for (let i = top - 1; i >= 0 && firstMatch(c.inputAbove, lines[i]!) >= 0; i--) rows.push(i);
  return rows;
}

/** Where an input's echo starts on a screen: how many times, and the newest line (-1: none). */
export interface EchoSightings {
  count: number;
  newest: number;
}

/**
 * The echoes of `userInput` above `end`: rows that start it behind a prompt decoration, and
 * Claude Code's one-line `[Pasted text #1 …]` form. Taken at a submit, they tell an earlier
 * message's echo (the same question asked again: "continue", or a repeated ask) from the one
 * the agent draws for this submit.
 */
export function echoSightings(lines: string[], end: number, userInput: string): EchoSightings {
  const { first } = typedForms(userInput);
  const seen: EchoSightings = { count: 0, newest: -1 };
  if (first === '') return seen;
  for (let i = 0; i < Math.min(end, lines.length); i++) {
    const line = lines[i]!;
    const c = compact(normEcho(line));
    const starts =
      ECHO_DECORATION.test(line) &&
      c !== '' &&
      first.startsWith(c) &&
      c.length >= Math.min(first.length, ECHO_MIN_PREFIX_CHARS);
    if (starts || PASTED_ECHO.test(line)) {
      seen.count++;
      seen.newest = i;
    }
  }
  return seen;
}

/** Index of the first line after the echoed input (0 when there is no echo to find). With
 * `onlyAt`, the echo must start on that line. `from`: the first line the screen showed when the
 * input was submitted — an echo whose start is not on screen is looked for only from there. */
export function echoEnd(
  lines: string[],
  end: number,
  userInput: string,
  onlyAt?: number,
  from = 0,
): number {
  const { lines: userLines, whole, first, last } = typedForms(userInput);
  if (userLines.length === 0) return 0;
  const startsEcho = (i: number): boolean => {
    const c = compact(normEcho(lines[i]!));
    if (c === '' || !first.startsWith(c)) return false;
    return c.length >= Math.min(first.length, ECHO_MIN_PREFIX_CHARS);
  };
  const decorated = (i: number): boolean =>
    ECHO_DECORATION.test(lines[i]!) || (i > 0 && USER_LABEL.test(lines[i - 1]!));
  // Newest echo first: a long session's screen holds every earlier message too. A line with a
  // prompt decoration is preferred to a bare line that only happens to read the same.
  for (const needDecoration of [true, false]) {
    for (let i = end - 1; i >= 0; i--) {
      if (onlyAt !== undefined && i !== onlyAt) continue;
      if (!startsEcho(i) || (needDecoration && !decorated(i))) continue;
      let pos = 0;
      let j = i;
      while (j < end && pos < whole.length) {
        const c = compact(normEcho(lines[j]!));
        if (c !== '' && !whole.startsWith(c, pos)) break;
        pos += c.length;
        j++;
      }
      // An echo shown cut (Claude Code hides the middle of a long message behind "(187 lines
      // hidden)", of one long line too): it ends at the row that ends the message's last line.
      if (pos < whole.length) {
        for (let k = j; k < end; k++) {
          if (endsInput(lines[k]!)) {
            j = k + 1;
            break;
          }
        }
      }
      return afterEcho(j);
    }
  }
  if (onlyAt === undefined) {
    for (let i = end - 1; i >= 0; i--) if (PASTED_ECHO.test(lines[i]!)) return i + 1;
    // An echo longer than the screen keeps (Gemini's 100 KB question past the scrollback, Codex's
    // alternate screen): the buffer starts inside it. Its newest row ending the message whose
    // rows above, up to the buffer's first, all continue the message ends it — however the
    // buffer's rows moved since the submit (a full scrollback drops its oldest row per new one).
    for (let k = end - 1; k >= 0; k--)
      if (endsInput(lines[k]!) && tailToTop(k)) return afterEcho(k + 1);
    // Only the end of a long message's echo is left (its start scrolled out of an alternate
    // screen, as in Codex): the newest row ending its last line ends it — below what the screen
    // showed at the submit: above it, a row ending the same way is an earlier message's (two
    // questions ending "why?"), and the answer would start with the turns before.
    if (userLines.length > 1) {
      for (let k = end - 1; k >= Math.max(0, from); k--)
        if (endsInput(lines[k]!)) return afterEcho(k + 1);
    }
  }
  return 0;

  /** A row that ends the input's last line (the whole line, or the tail it wraps onto). */
  function endsInput(line: string): boolean {
    const c = compact(normEcho(line));
    return c.length >= Math.min(last.length, ECHO_MIN_PREFIX_CHARS) && last.endsWith(c);
  }

  /** Whether the rows from the buffer's first to `k` are, in order, the end of the message. */
  function tailToTop(k: number): boolean {
    let pos = whole.length;
    for (let i = k; i >= 0; i--) {
      const c = compact(normEcho(lines[i]!));
      if (c === '') continue;
      if (!whole.endsWith(c, pos)) return false;
      pos -= c.length;
    }
    return true;
  }

  /** Past the blank rows and the echo box's bottom border that follow an echo. */
  function afterEcho(j: number): number {
    while (j < end && (lines[j]!.trim() === '' || ECHO_BOX_BOTTOM.test(lines[j]!))) j++;
    return j;
  }
}
