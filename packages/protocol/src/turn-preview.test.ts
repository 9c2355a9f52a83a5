import { describe, expect, it } from 'vitest';
import { TURN_PREVIEW_CHARS, turnPreview } from './turn-preview.js';

describe('turnPreview', () => {
  it('is the trimmed text when it is short', () => {
    expect(turnPreview('\n  got one\n\n')).toBe('got one');
    expect(turnPreview('')).toBe('');
  });

  it('keeps the start of a long text, at most TURN_PREVIEW_CHARS characters', () => {
    const text = `${'a'.repeat(TURN_PREVIEW_CHARS - 1)}bc${'d'.repeat(5000)}`;
    expect(turnPreview(text)).toBe(`${'a'.repeat(TURN_PREVIEW_CHARS - 1)}b`);
  });

  it('never cuts a character in two', () => {
    const text = `${'a'.repeat(TURN_PREVIEW_CHARS - 1)}😀 and more`;
    const preview = turnPreview(text);
    expect(preview).toBe('a'.repeat(TURN_PREVIEW_CHARS - 1));
    expect(() => encodeURIComponent(preview)).not.toThrow();
  });
});
