import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { promptText } from './prompt-text.js';

describe('promptText', () => {
  it('types text as it is, and a mentioned file as its path, apart from the words around it', () => {
    expect(promptText([{ type: 'text', text: 'line 1\nline 2' }])).toBe('line 1\nline 2');
    expect(
      promptText([
        { type: 'text', text: 'compare' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///repo/a%20b.ts' },
        { type: 'text', text: 'with ' },
        { type: 'resource_link', name: 'spec', uri: 'https://example.com/spec' },
      ]),
    ).toBe('compare /repo/a b.ts with https://example.com/spec');
  });

  it('refuses what cannot be typed into a terminal, naming it, and an empty prompt', () => {
    const refused = (blocks: Parameters<typeof promptText>[0]) => {
      try {
        promptText(blocks);
      } catch (err) {
        return err as RequestError;
      }
      throw new Error('accepted');
    };
    const image = refused([{ type: 'image', mimeType: 'image/png', data: '' }]);
    expect(image).toBeInstanceOf(RequestError);
    expect([image.code, image.message]).toEqual([
      -32602,
      'clippy acp types the prompt into a terminal agent, which reads text only: an image cannot be sent (send text, or mention the file instead)',
    ]);
    expect(refused([{ type: 'audio', mimeType: 'audio/wav', data: '' }]).code).toBe(-32602);
    expect(
      refused([{ type: 'resource', resource: { uri: 'file:///x', text: 'x' } }]).message,
    ).toMatch(/an embedded resource/u);
    expect(refused([{ type: 'text', text: '  \n' }]).message).toMatch(/no text/u);
  });
});
