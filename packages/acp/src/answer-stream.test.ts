import { describe, expect, it } from 'vitest';
import { AnswerStream, type Chunk } from './answer-stream.js';

/** The text an editor shows for each message, from the chunks it was sent. */
function shown(chunks: (Chunk | null)[]): string[] {
  const messages = new Map<string, string>();
  for (const c of chunks)
    if (c) messages.set(c.messageId, (messages.get(c.messageId) ?? '') + c.text);
  return [...messages.values()];
}

describe('AnswerStream', () => {
  it('sends whole lines once they held still for two looks, never the last one', () => {
    const s = new AnswerStream();
    expect(s.progress('Hello')).toBeNull();
    expect(s.progress('Hello wor')).toBeNull();
    expect(s.progress('Hello world\nSec')).toBeNull(); // line 1 changed since the last look
    expect(s.progress('Hello world\nSecond')).toMatchObject({ text: 'Hello world' });
    expect(s.progress('Hello world\nSecond line\nThi')).toBeNull();
    expect(s.progress('Hello world\nSecond line\nThird')).toMatchObject({ text: '\nSecond line' });
  });

  it("ends with the turn's text: the editor's message is exactly it", () => {
    const s = new AnswerStream();
    const chunks = [
      s.progress('a\nb'),
      s.progress('a\nb\nc'),
      s.progress('a\nb\nc\nd'),
      s.final('a\nb\nc\nd'),
    ];
    expect(shown(chunks)).toEqual(['a\nb\nc\nd']);
    // Nothing more once the whole text was sent.
    const t = new AnswerStream();
    t.progress('x\ny');
    t.progress('x\ny');
    expect(t.final('x')).toBeNull();
  });

  it('holds back what the screen changes (a status line at the bottom, a redrawn line)', () => {
    const s = new AnswerStream();
    const chunks = [
      s.progress('Answer\nThinking…'),
      s.progress('Answer\nWorking…'),
      s.progress('Answer\nWorking…\nmore'),
      s.final('Answer\nDone.'),
    ];
    // "Working…" held still for two looks and went out; the end says otherwise: the whole text
    // comes again as a new message, so the last message is exactly the turn's text.
    expect(shown(chunks)).toEqual(['Answer\nWorking…', 'Answer\nDone.']);
  });

  it('sends nothing for an empty answer', () => {
    expect(new AnswerStream().final('')).toBeNull();
  });
});
