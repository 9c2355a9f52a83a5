/**
 * The bytes that show a one-line message on the bottom row of the user's terminal, in reverse
 * video, and put the cursor and pen back where the program left them (DECSC/DECRC). The
 * program's next redraw of that row replaces it: the attach client keeps no screen to restore.
 */
export function noticeLineBytes(text: string, cols: number, rows: number): string {
  const width = Math.max(1, cols);
  const line = ` clippy: ${text} `;
  const shown = line.length > width ? line.slice(0, width - 1) + '…' : line.padEnd(width);
  return `\x1b7\x1b[${Math.max(1, rows)};1H\x1b[0;7m${shown}\x1b8`;
}
