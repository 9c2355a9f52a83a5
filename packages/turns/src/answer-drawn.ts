// Whether a screen has drawn an answer to its end, judged by the answer the agent recorded: an
// agent that streams its answer may show its turn done before it draws the last of it (OpenCode).

/**
 * The answer's last words the screen must show in a row: enough that a line half-written above
 * the last one shows (`- a sta` over `- a dash item`), few enough to stay among words every
 * rendering keeps (a fence's language tag or a link's address further up is not drawn).
 */
const TAIL_WORDS = 5;

/** Words of letters and digits; a rendering keeps them whatever Markdown it draws around them. */
const WORD = /[\p{L}\p{N}]+/gu;

/** Text as its words run together: what lies between them (a wrap, a border) does not count. */
function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/**
 * What the screen must show for `answer` (the agent's own Markdown) to be drawn to its end: its
 * last TAIL_WORDS words run together. Null when the answer has no word: nothing to tell by.
 * Taken once, where the record is read, so that only these few characters go to the detector.
 */
export function answerTail(answer: string): string | null {
  const tail = wordsOf(answer).slice(-TAIL_WORDS);
  return tail.length === 0 ? null : tail.join('');
}

/**
 * Whether `screenText` shows an answer's tail (answerTail): its words one after the other,
 * compared without what lies between them — wrapped lines, table borders, list markers, a break a
 * terminal put inside a long word (a CJK run). Only the end is looked for: a long answer scrolled
 * off a full-screen agent's screen still ends there.
 */
export function tailDrawn(tail: string, screenText: string): boolean {
  return wordsOf(screenText).join('').includes(tail);
}
