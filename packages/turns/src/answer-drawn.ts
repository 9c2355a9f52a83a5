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

/**
 * Whether `screenText` shows the end of `answer` (the agent's own Markdown): its last
 * TAIL_WORDS words, one after the other (wrapped lines, table borders and list markers between
 * them are not words, nor is a break a terminal put inside one). Only the end is looked for: a long answer scrolled off a full-screen
 * agent's screen still ends there. Null when the answer has no word: nothing to tell by.
 */
export function answerDrawn(answer: string, screenText: string): boolean | null {
  const tail = (answer.match(WORD) ?? []).slice(-TAIL_WORDS);
  if (tail.length === 0) return null;
  // Compared without what lies between words: a terminal wraps a long word (a CJK run) too.
  return (screenText.match(WORD) ?? []).join('').includes(tail.join(''));
}
