/**
 * Answers a model gives whose Markdown a screen does not keep (the real-agents issue): fences
 * of code blocks, list markers and table pipes that agents redraw as drawing characters,
 * unicode, lines longer than a terminal (wrapped into hard breaks on screen), and an answer
 * taller than the screen. The agent channel tests assert that each reaches `ask`, and another
 * agent's model through relay and loop, exactly. None ends with a newline (Gemini CLI keeps
 * none at the end of an answer).
 */

const LONG_LINE = Array.from({ length: 20 }, (_, i) => `word${String(i).padStart(4, '0')}`)
  .join(' ')
  .padEnd(200, '.');

export const MARKDOWN_ANSWERS: Record<string, string> = {
  code: [
    'Here is the function:',
    '',
    '```ts',
    'export function add(a: number, b: number): number {',
    '  return a + b; // no `any` here',
    '}',
    '```',
    '',
    'Call it as `add(1, 2)`.',
  ].join('\n'),
  list: [
    'Steps:',
    '',
    '1. Read the file.',
    '2. Parse it:',
    '   - headers first',
    '   - then the **body**',
    '3. Write the result.',
    '',
    '* a star item',
    '- a dash item',
  ].join('\n'),
  table: [
    '| name | value | note |',
    '|------|------:|:----:|',
    '| a    |     1 | x    |',
    '| b    |    22 | y|z  |',
    '',
    '> a quote after the table',
  ].join('\n'),
  unicode: [
    'Unicode: café, naïve, 日本語のテキスト, emoji 🎉🚀, math ∑∫√∞, arrows → ← ↔.',
    'Box drawing ─│┌┐ and bullets ● • ✦ inside the answer stay.',
  ].join('\n'),
  long: [`A long line follows (${LONG_LINE.length} characters):`, '', LONG_LINE].join('\n'),
  tall: Array.from({ length: 300 }, (_, i) => `line ${String(i + 1).padStart(3, '0')} of 300`).join(
    '\n',
  ),
};

/** The question that makes the fake model give answer `key` (see `answerFor`). */
export function askFor(key: string): string {
  return `Please give the ${key} answer.`;
}

/** The answer asked for in a user's text, or undefined. */
export function answerFor(userText: string | null): string | undefined {
  const m = /Please give the (\w+) answer\./u.exec(userText ?? '');
  return m ? MARKDOWN_ANSWERS[m[1]!] : undefined;
}
