import { describe, expect, it } from 'vitest';
import { answerTail, tailDrawn } from './answer-drawn.js';

/** Whether the screen shows the answer's end (null: the answer has nothing to tell it by). */
function answerDrawn(answer: string, screenText: string): boolean | null {
  const tail = answerTail(answer);
  return tail === null ? null : tailDrawn(tail, screenText);
}

const LIST =
  'Steps:\n\n1. Read the file.\n2. Parse it:\n   - headers first\n   - then the body\n3. Write the result.\n\n- a star item\n\n* a dash item';

describe('answerTail and tailDrawn', () => {
  it('a screen that rendered the answer whole (markers redrawn, no Markdown) shows its end', () => {
    const screen =
      'Steps:\n\n1. Read the file.\n2. Parse it:\n  • headers first\n  • then the body\n3. Write the result.\n\n• a star item\n\n• a dash item';
    expect(answerDrawn(LIST, screen)).toBe(true);
    expect(answerDrawn('Run `npm test` and **done**.', 'Run npm test and done.')).toBe(true);
  });

  it('a screen cut short does not, even where an earlier line has the last word', () => {
    // OpenCode's done frame, captured half-written on a loaded machine.
    expect(
      answerDrawn(
        LIST,
        'Steps:\n\n1.\n2. Parse it:\n   - headers first\n   - the\n3. Writ\n\n- a sta',
      ),
    ).toBe(false);
    expect(
      answerDrawn(
        LIST,
        'Steps:\n\n1. Read the file.\n2. Parse it:\n3. Write the result.\n\n- a star item\n\n- a da',
      ),
    ).toBe(false);
    expect(answerDrawn('The command ran.', 'The command')).toBe(false);
  });

  it('a word the terminal wrapped in two is still the word', () => {
    expect(answerDrawn('日本語の文章です。', '日本語の文\n章です。')).toBe(true);
  });

  it('a long answer scrolled off the screen ends there: its end is enough', () => {
    const tall = Array.from({ length: 300 }, (_, i) => `line ${i + 1} of 300`).join('\n');
    const screen = Array.from({ length: 20 }, (_, i) => `line ${281 + i} of 300`).join('\n');
    expect(answerDrawn(tall, screen)).toBe(true);
    expect(answerDrawn(tall, screen.replace(/line 300 of 300$/u, 'line 300 of'))).toBe(false);
  });

  it('a table drawn in a box, and a line wrapped, keep their words in order', () => {
    const table = '| name | value |\n|------|------:|\n| a    |     1 |\n| b    |    22 |';
    const boxed =
      '┌──────┬───────┐\n│ name │ value │\n├──────┼───────┤\n│ a    │     1 │\n│ b    │    22 │\n└──────┴───────┘';
    expect(answerDrawn(table, boxed)).toBe(true);
    expect(
      answerDrawn(
        'word0001 word0002 word0003 word0004 word0005',
        'word0001 word0002\nword0003 word0004 word0005',
      ),
    ).toBe(true);
  });

  it('an answer without a word tells nothing', () => {
    expect(answerDrawn('---\n***', '')).toBeNull();
    expect(answerDrawn('', 'anything')).toBeNull();
  });
});
