// Reading the question an agent asks, and its choices, from the bottom of its screen: what a
// `blocked` session waits for. Agents draw four kinds of questions (see the real agents'
// screens in test/screens): numbered choices with a cursor
// (Claude Code, Codex, Copilot, Gemini: `❯ 1. Yes`), a radio list (Gemini: `● Yes, allow once`,
// `○ No`), choices side by side on one row (OpenCode: `Allow once   Allow always   Reject …
// ⇆ select`) and letters typed on the question's line (aider: `(Y)es/(N)o/(D)on't ask again
// [Yes]:`, Amazon Q `[y/n/t]:`, Copilot `(y/n):`). Each choice comes with the keys that pick it, so any
// client (an ACP editor, the web view) can answer without knowing the agent.
import { screenLines } from './screen-lines.js';

/** How the choices are picked: moving a cursor, or typing a letter on the question's line. */
export type MenuStyle = 'numbered' | 'radio' | 'row' | 'letters';

export interface MenuOption {
  /** The choice as the screen shows it, without its number or cursor. */
  label: string;
  /**
   * Keys that pick it, by name (`Down`, `Enter`, see the protocol's KEY_NAMES) or as literal text
   * (`y`), pressed at once in this order.
   */
  keys: string[];
  /** The cursor is on it (or, for letters, it is the default an Enter alone gives). */
  selected: boolean;
}

export interface Menu {
  /** The question asked (`Do you want to proceed?`), or the line right above the choices. */
  question: string;
  /** The dialog's other lines above the choices (the command, the file, the reason), in order. */
  detail: string[];
  options: MenuOption[];
  style: MenuStyle;
  /** Keys that dismiss the question without a choice (Esc, when the screen offers it), or null. */
  cancel: string[] | null;
}

/** Bottom screen lines searched for choices: taller than any agent's dialog, short of history. */
const MENU_SCAN_LINES = 40;
/** Lines from the bottom in which a typed-letter question must sit: it waits on the last line,
 * which a line editor may follow with an empty one. */
const LETTERS_SCAN_LINES = 3;
/** Lines between two numbered choices that are not choices (a description under each: Codex's
 * sign-in, blank lines between Claude's login methods). */
const MAX_OPTION_GAP = 3;
/** Lines of a dialog read above its choices (its question and detail) when no border ends it. */
export const MAX_DIALOG_LINES = 12;
/** Blank lines in a row that end a dialog upward (its own blank lines come one at a time). */
const DIALOG_GAP_LINES = 3;
/** Lines of a line program's output read above a typed-letter question (aider's file name, the
 * shell command it wants to run). */
export const MAX_LETTER_DETAIL_LINES = 8;

/** A numbered choice: an optional cursor, the number, `.` or `)`, the label. */
const NUMBERED = /^\s*(?:([❯>›●▶→▸])\s*)?(\d{1,2})[.)]\s+(\S.*)$/u;
/** A radio choice: `●` (selected) or `○`, the label. */
const RADIO = /^\s*([●○◉◯])\s+(\S.*)$/u;
/** Letters in parentheses joined by slashes: `(Y)es/(N)o/(D)on't ask again`. */
const PAREN_LETTERS = /\(([A-Za-z])\)([^/()[\]:]*)(?:\/\s*\(([A-Za-z])\)([^/()[\]:]*))+/u;
const PAREN_LETTER = /\(([A-Za-z])\)([^/()[\]:]*)/gu;
/** Letters in brackets: `[y/n/t]`, `(y/n)`, `[Y/n]`. */
const BRACKET_LETTERS = /[[(]([A-Za-z](?:\/[A-Za-z])+)[\])]\s*:?\s*$/u;
/** The default of a typed-letter question: `[Yes]`. */
const LETTER_DEFAULT = /\[([A-Za-z][\w' ]*)\]\s*:?\s*$/u;
/** A rule across the dialog (Claude Code's above its dialogs, `╌` around a diff). */
const RULE = /^\s*[─━═╌╍┄┅┈┉]{10,}\s*$/u;
/** The top of a box (a dialog drawn in one). */
const BOX_TOP = /^\s*[╭┌][─━═╌╍┄┅┈┉]*[╮┐]?\s*$/u;
/** A row of nothing but box drawing (a box's bottom, its wrapped border). */
const BORDER_ONLY = /^[\s─━═╌╍┄┅┈┉╭╮╰╯┌┐└┘│┃║]*$/u;
/** A box's or quote's left edge, and a box's right edge. */
const LEFT_EDGE = /^\s*[│┃║▌]\s?/u;
const RIGHT_EDGE = /\s*[│┃║]\s*$/u;
/**
 * A scrollbar at the screen's right edge, apart from the text: Qwen Code's track `│` and thumb
 * `█` (either, row by row, as it scrolls), or a box's right edge whose left is not drawn yet.
 */
const RIGHT_BAR = /\s{2,}[│┃║\u2580-\u259f]$/u;
/** The screen offers Esc to dismiss the question. */
const ESC_HINT = /\besc\b/iu;
/** The hint of choices side by side, picked with Left and Right (OpenCode's `⇆ select`). */
const ROW_HINT = /(?:^|\s{2})⇆ select\b/u;
/** A key hint after a row of choices (`ctrl+f fullscreen`, `⇆ select`, `enter confirm`). */
const KEY_HINT = /^(?:⇆|enter|esc|tab|ctrl\+\S+|shift\+\S+|alt\+\S+)\s/iu;
/** A question's end: `?`, maybe before a hint in parentheses. */
const QUESTION_END = /\?(?:\s*\([^)]*\))?\s*:?$/u;

/** Labels of the usual letters of a bracketed question (others are shown as the letter). */
const LETTER_LABELS: Record<string, string> = { y: 'Yes', n: 'No', a: 'All', q: 'Quit' };

/**
 * A screen row without the box or quote edges around it (nested boxes too) or a scrollbar beside
 * it, right-trimmed.
 */
function unbox(line: string): string {
  let s = line.replace(/\s+$/u, '').replace(RIGHT_BAR, '');
  while (LEFT_EDGE.test(s)) s = s.replace(LEFT_EDGE, '').replace(RIGHT_EDGE, '');
  return s;
}

type Row = { text: string; boundary: boolean; border: boolean };

function rows(screen: string | readonly string[]): Row[] {
  const lines = screenLines(screen).slice(-MENU_SCAN_LINES);
  return lines.map((raw) => {
    const boundary = RULE.test(raw) || BOX_TOP.test(raw) || BOX_TOP.test(unbox(raw));
    const text = unbox(raw);
    return {
      text,
      boundary: boundary || RULE.test(text),
      border: text.trim() !== '' && BORDER_ONLY.test(text),
    };
  });
}

/**
 * The question at the bottom of a screen and its choices, with the keys that pick each; null
 * when the bottom of the screen shows no choices. Pure: give it the screen's rendered lines (the
 * whole screen or its bottom) of a session the classifier calls `blocked` — on an idle screen a
 * numbered list in an answer is text, not a question.
 */
export function readMenu(screen: string | readonly string[]): Menu | null {
  const r = rows(screen);
  if (r.length === 0) return null;
  return lettersMenu(r) ?? rowMenu(r) ?? cursorMenu(r);
}

// ---- choices side by side -----------------------------------------------------------------

/**
 * `Allow once   Allow always   Reject      ctrl+f fullscreen  ⇆ select  enter confirm`: the
 * choices are the row's cells (two or more spaces apart) before its key hints. The cursor is
 * drawn as a colour only, so it is taken to be where the dialog opens it, on the first choice.
 * The question is the dialog's first line above (its title), the rest its detail.
 */
function rowMenu(r: Row[]): Menu | null {
  const i = r.findLastIndex((row) => ROW_HINT.test(row.text));
  if (i < 0) return null;
  const cells = r[i]!.text.trim().split(/\s{2,}/u);
  const labels = cells.slice(
    0,
    cells.findIndex((c) => KEY_HINT.test(c)),
  );
  if (labels.length < 2) return null;
  const { detail, hints } = dialogAbove(r, i);
  const options = labels.map((label, j) => ({
    label,
    keys: [...Array.from({ length: j }, () => 'Right'), 'Enter'],
    selected: j === 0,
  }));
  const offersEsc = [...hints, ...cells].some((t) => ESC_HINT.test(t));
  return {
    question: hints[0] ?? '',
    detail: hints.length > 0 ? hints.slice(1) : detail,
    options,
    style: 'row',
    cancel: offersEsc ? ['Esc'] : null,
  };
}

// ---- typed letters ------------------------------------------------------------------------

function lettersMenu(r: Row[]): Menu | null {
  let seen = 0;
  for (let i = r.length - 1; i >= 0 && seen < LETTERS_SCAN_LINES; i--) {
    const text = r[i]!.text.trim();
    if (text === '') continue;
    seen++;
    const found = parenLetters(text) ?? bracketLetters(text);
    if (!found) continue;
    let question = found.question;
    let top = i;
    if (question === '') {
      // The choices alone on their line: the question is the line above.
      top = previousText(r, i);
      question = top >= 0 ? r[top]!.text.trim() : '';
    }
    // The block of output right above the question (a blank line may come between).
    const detail: string[] = [];
    for (let k = top - 1; k >= 0 && detail.length < MAX_LETTER_DETAIL_LINES; k--) {
      const line = r[k]!;
      if (line.boundary) break;
      if (line.text.trim() === '') {
        if (detail.length > 0 || k < top - 1) break;
        continue;
      }
      if (!line.border) detail.unshift(line.text.trim());
    }
    return { question, detail, options: found.options, style: 'letters', cancel: null };
  }
  return null;
}

function previousText(r: Row[], i: number): number {
  for (let k = i - 1; k >= 0; k--) {
    if (r[k]!.boundary) return -1;
    if (r[k]!.text.trim() !== '' && !r[k]!.border) return k;
  }
  return -1;
}

/** `Add app.py to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:` */
function parenLetters(text: string): { question: string; options: MenuOption[] } | null {
  const m = PAREN_LETTERS.exec(text);
  if (!m) return null;
  const tail = text.slice(m.index);
  const defaultLabel = LETTER_DEFAULT.exec(tail)?.[1]?.toLowerCase();
  const options: MenuOption[] = [];
  for (const part of m[0].matchAll(PAREN_LETTER)) {
    const letter = part[1]!;
    const label = `${letter}${part[2]!}`.trim();
    options.push({
      label,
      keys: [letter.toLowerCase(), 'Enter'],
      selected: defaultLabel !== undefined && label.toLowerCase() === defaultLabel,
    });
  }
  return { question: text.slice(0, m.index).trim(), options };
}

/** `Allow access to these paths? (y/n):`, `… [y/n/t]:` */
function bracketLetters(text: string): { question: string; options: MenuOption[] } | null {
  const m = BRACKET_LETTERS.exec(text);
  if (!m) return null;
  const letters = m[1]!.split('/');
  // `[Y/n]`: the capital one is what Enter alone gives.
  const capital = letters.filter((l) => l === l.toUpperCase());
  const options = letters.map((l) => ({
    label: LETTER_LABELS[l.toLowerCase()] ?? l.toLowerCase(),
    keys: [l.toLowerCase(), 'Enter'],
    selected: capital.length === 1 && capital[0] === l && letters.length > 1,
  }));
  return { question: text.slice(0, m.index).trim().replace(/:$/u, '').trim(), options };
}

// ---- a cursor over choices ----------------------------------------------------------------

interface Choice {
  row: number;
  label: string;
  selected: boolean;
  number: number | null;
}

function cursorMenu(r: Row[]): Menu | null {
  // Choices above the lowest border belong to something drawn before the dialog at the bottom
  // (Gemini's numbered tips above its API-key box): the question is below it.
  const floor = r.findLastIndex((row) => row.boundary);
  const numbered = numberedChoices(r, floor);
  const radio = radioChoices(r, floor);
  // The lower group is the one being asked (a list higher up is history or answer text).
  const choices =
    numbered && radio
      ? numbered.at(-1)!.row >= radio.at(-1)!.row
        ? numbered
        : radio
      : (numbered ?? radio);
  if (!choices) return null;
  const style: MenuStyle = choices[0]!.number === null ? 'radio' : 'numbered';
  const first = choices[0]!.row;
  const last = choices.at(-1)!.row;
  const { question, detail, hints } = dialogAbove(r, first);
  // A footer below the choices says how to answer (`Esc to cancel`, `Press enter to confirm`).
  const footer = r.slice(last + 1).map((x) => x.text);
  const cursor = choices.findIndex((c) => c.selected);
  const options = choices.map((c, j) => ({
    label: c.label,
    keys: keysFor(style, c, j, cursor),
    selected: c.selected,
  }));
  const offersEsc = [...hints, ...footer, ...choices.map((c) => c.label)].some((t) =>
    ESC_HINT.test(t),
  );
  return { question, detail, options, style, cancel: offersEsc ? ['Esc'] : null };
}

/**
 * The keys that move the cursor from where it is to choice `j` and confirm it. With no cursor
 * shown, a numbered choice is picked by its number (the agents that draw none take number keys).
 */
function keysFor(style: MenuStyle, c: Choice, j: number, cursor: number): string[] {
  if (cursor < 0 && style === 'numbered') return [String(c.number)];
  const from = cursor < 0 ? 0 : cursor;
  const moves = Array.from({ length: Math.abs(j - from) }, () => (j > from ? 'Down' : 'Up'));
  return [...moves, 'Enter'];
}

/** The lowest run of choices numbered 1, 2, …, n (n ≥ 2), top to bottom. */
function numberedChoices(r: Row[], floor: number): Choice[] | null {
  for (let i = r.length - 1; i > floor; i--) {
    const m = NUMBERED.exec(r[i]!.text);
    if (!m) continue;
    const group: Choice[] = [choiceOf(i, m)];
    let want = group[0]!.number! - 1;
    let gap = 0;
    for (let k = i - 1; k >= 0 && want >= 1; k--) {
      const mk = NUMBERED.exec(r[k]!.text);
      if (mk && Number(mk[2]) === want) {
        group.unshift(choiceOf(k, mk));
        want--;
        gap = 0;
        continue;
      }
      if (r[k]!.boundary || ++gap > MAX_OPTION_GAP) break;
    }
    if (want === 0 && group.length >= 2) return group;
  }
  return null;
}

function choiceOf(row: number, m: RegExpExecArray): Choice {
  return { row, label: m[3]!.trim(), selected: m[1] !== undefined, number: Number(m[2]) };
}

/** The lowest run of radio choices (two or more, at least one unselected), top to bottom. */
function radioChoices(r: Row[], floor: number): Choice[] | null {
  for (let i = r.length - 1; i > floor; i--) {
    if (!RADIO.test(r[i]!.text)) continue;
    const group: Choice[] = [];
    let k = i;
    for (; k >= 0; k--) {
      const m = RADIO.exec(r[k]!.text);
      if (!m) break;
      group.unshift({ row: k, label: m[2]!.trim(), selected: /[●◉]/u.test(m[1]!), number: null });
    }
    if (group.length >= 2 && group.some((c) => !c.selected)) return group;
    i = k;
  }
  return null;
}

/**
 * The dialog's lines above its choices, up to its border (a rule, a box's top) or a wide gap:
 * the question is its first line that asks one, else its last line; the rest is detail.
 */
function dialogAbove(
  r: Row[],
  first: number,
): { question: string; detail: string[]; hints: string[] } {
  const lines: string[] = [];
  let blanks = 0;
  for (let k = first - 1; k >= 0 && lines.length < MAX_DIALOG_LINES; k--) {
    const row = r[k]!;
    if (row.boundary) break;
    const text = row.text.trim();
    if (text === '') {
      if (lines.length > 0 && ++blanks >= DIALOG_GAP_LINES) break;
      continue;
    }
    blanks = 0;
    if (!row.border) lines.unshift(text);
  }
  let q = lines.findIndex((l) => QUESTION_END.test(l));
  if (q < 0) q = lines.findIndex((l) => l.includes('? '));
  if (q < 0) q = lines.length - 1;
  const question = q >= 0 ? lines[q]! : '';
  return { question, detail: lines.filter((_, k) => k !== q), hints: lines };
}
