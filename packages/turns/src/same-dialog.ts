// Whether two reads of a blocked screen are one question: an agent's dialog is read while it is
// drawn, redrawn and taken away, and a client tells its user of a question once.
import { MAX_DIALOG_LINES, MAX_LETTER_DETAIL_LINES, type Menu } from './menu.js';

export type DialogRead = Pick<Menu, 'question' | 'detail' | 'style'>;

/**
 * Two reads of one dialog: every line one read has and the other lacks is explained by the draw.
 * Its question may be missing from the other when the other took one of its lines for the
 * question (a half-drawn dialog: Qwen Code's `? Shell touch a.txt (Run a command) ←` before
 * `Allow execution of…?` is drawn), and a read that filled its window of lines above the
 * choices (MAX_DIALOG_LINES) may have lines at its top the other lost to the lines it has below.
 * Another question brings lines of its own lower down (its command, its file): never the same.
 */
export function sameDialog(a: DialogRead, b: DialogRead): boolean {
  return onlyDrawn(a, b) && onlyDrawn(b, a);
}

/** The dialog's lines as the user reads them: a question first, then its detail in order. */
function dialogLines(d: DialogRead): string[] {
  return [d.question, ...d.detail].map(dialogLine).filter((l) => l !== '');
}

/**
 * A line as the user reads it: an agent's cursor or scrollbar (block characters, U+2580–U+259F)
 * may sit at a line's end in one draw and not the next (Qwen Code's `…why?   █`), trailing spaces
 * with it. (A scrollbar apart from the text, `│` as well, the menu reader drops itself.)
 */
function dialogLine(line: string): string {
  return line.replace(/[\u2580-\u259f]/gu, '').replace(/[ \t]+$/gmu, '');
}

/** Whether a read's lines that `b` lacks are its question or, as many as `b` has below, its top. */
function onlyDrawn(a: DialogRead, b: DialogRead): boolean {
  const aLines = dialogLines(a);
  const bLines = dialogLines(b);
  const inA = new Set(aLines);
  const inB = new Set(bLines);
  // `b` read with the question's line not drawn took another of `a`'s lines for its question.
  const bHalf = inA.has(dialogLine(b.question));
  const question = bHalf ? dialogLine(a.question) : null;
  const own = aLines.filter((l) => !inB.has(l) && l !== question);
  if (own.length === 0) return true;
  const window = a.style === 'letters' ? MAX_LETTER_DETAIL_LINES + 1 : MAX_DIALOG_LINES;
  if (aLines.length < window) return false;
  const pushedBy = bLines.filter((l) => !inA.has(l)).length;
  const top = new Set(a.detail.slice(0, pushedBy).map(dialogLine));
  return own.every((l) => top.has(l));
}
