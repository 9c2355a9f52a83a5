/** `1 turn`, `2 turns`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Text on one line, cut to `width` characters with an ellipsis. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/[\r\n]+/g, ' ').trim();
  const chars = [...flat];
  return chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : flat;
}

/** How many lines a text has, for messages (`sent 2 lines to alpha`). */
export function lineCount(text: string): number {
  return text.split('\n').length;
}
