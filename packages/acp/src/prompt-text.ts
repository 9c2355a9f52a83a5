import { fileURLToPath } from 'node:url';
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';

/**
 * A prompt's content as the text typed into the terminal agent. A terminal agent reads text
 * only: text blocks are taken as they are, and a resource link (an editor's @-mention of a file,
 * which every ACP agent must take) becomes the file's path, or its URI when it is no local
 * file — the agent opens it itself. Images, audio and embedded resources cannot be typed into a
 * terminal: they are refused (`initialize` says so in `promptCapabilities`), never dropped.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  let text = '';
  let afterLink = false;
  for (const block of blocks) {
    let part: string;
    if (block.type === 'text') {
      part = block.text;
      // Words right after a mention stay apart from it.
      if (afterLink && /^\S/u.test(part)) part = ` ${part}`;
    } else if (block.type === 'resource_link') {
      part = linkText(block.uri);
      if (text !== '' && !/\s$/u.test(text)) part = ` ${part}`;
    } else {
      throw new RequestError(
        -32602,
        `clippy acp types the prompt into a terminal agent, which reads text only: ${WHAT[block.type] ?? `"${block.type}" content`} cannot be sent (send text, or mention the file instead)`,
        { contentType: block.type },
      );
    }
    afterLink = block.type === 'resource_link';
    text += part;
  }
  if (text.trim() === '') {
    throw new RequestError(-32602, 'the prompt has no text to type into the agent');
  }
  return text;
}

/** What a refused content block is, in a sentence. */
const WHAT: Record<string, string> = {
  image: 'an image',
  audio: 'audio',
  resource: 'an embedded resource (a file’s contents sent along)',
};

function linkText(uri: string): string {
  if (uri.startsWith('file:')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return uri;
    }
  }
  return uri;
}
