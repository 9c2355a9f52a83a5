import { randomUUID } from 'node:crypto';

/** A piece of the answer for the editor: text appended to the message `messageId`. */
export interface Chunk {
  messageId: string;
  text: string;
}

/**
 * Turns the growing text of an answer into append-only chunks. ACP has no way to take back text
 * already sent, and a screen's text may still change at its bottom (a line being written, a
 * status line the end removes, a redraw): only whole lines that stayed the same in two looks in
 * a row are sent, the text's last line never. When the turn completes, the rest of its text
 * follows; if the screen changed what was already sent (rare: a TUI redrew its answer), the
 * completed text is sent whole as a new message, so the editor's last message is exactly the
 * turn's text.
 */
export class AnswerStream {
  private messageId = randomUUID();
  /** Text sent so far in the current message: whole lines joined by line feeds. */
  private sent = '';
  private sentLines = 0;
  private previous: string[] | null = null;

  /** A look at the text so far: what may be sent of it now (null: nothing yet). */
  progress(text: string): Chunk | null {
    const lines = text.split('\n');
    const previous = this.previous;
    this.previous = lines;
    if (!previous) return null;
    // Lines below the ones sent, stable since the previous look, never the last one.
    let stable = this.sentLines;
    while (stable < lines.length - 1 && lines[stable] === previous[stable]) stable++;
    // What was sent must still be there: a screen that changed it waits for the end.
    if (stable === this.sentLines || !this.sentMatches(lines)) return null;
    const fresh = lines.slice(this.sentLines, stable).join('\n');
    const piece = this.sentLines === 0 ? fresh : `\n${fresh}`;
    this.sent += piece;
    this.sentLines = stable;
    return { messageId: this.messageId, text: piece };
  }

  /** The completed turn's text: the chunk that ends the answer (null: nothing more to send). */
  final(text: string): Chunk | null {
    if (this.sentLines > 0 && !(text.startsWith(this.sent) && atLineEnd(text, this.sent.length))) {
      // What was sent is not how the answer ends: it comes again whole, as a new message.
      this.messageId = randomUUID();
      this.sent = '';
      this.sentLines = 0;
    }
    const rest = text.slice(this.sent.length);
    this.sent = text;
    this.sentLines = text.split('\n').length;
    return rest === '' ? null : { messageId: this.messageId, text: rest };
  }

  private sentMatches(lines: string[]): boolean {
    return lines.slice(0, this.sentLines).join('\n') === this.sent;
  }
}

function atLineEnd(text: string, at: number): boolean {
  return at === text.length || text[at] === '\n';
}
