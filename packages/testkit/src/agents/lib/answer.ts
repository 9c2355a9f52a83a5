/**
 * The deterministic answer every fake agent gives: derived from the input only, so tests
 * can assert the exact turn text. The first line echoes the input after `ANSWER: `; the
 * input's further lines follow unchanged; two fixed lines close it.
 */
export function answerLines(input: string): string[] {
  const [first = '', ...rest] = input.split('\n');
  return [`ANSWER: ${first}`, ...rest, 'The fake agent read your message.', 'End of answer.'];
}

/** The lines of a slow answer's piece `k` (1-based) of `n`. */
export function pieceLine(k: number, n: number): string {
  return `Piece ${k} of ${n} is done.`;
}

/** One line of the big answer: fixed width so the byte count is exact and predictable. */
export function bigLine(index: number): string {
  // 79 characters + '\n' = 80 bytes per line on the wire (before the PTY's \r\n).
  return `big ${String(index).padStart(8, '0')} ${'x'.repeat(66)}`;
}

/** The Nth answer (0-based): the scripted reply when there is one (`--replies`), else answerLines. */
export function nthAnswer(replies: readonly string[], n: number, input: string): string[] {
  const scripted = replies[n];
  return scripted !== undefined ? scripted.split('\n') : answerLines(input);
}
