import type { Handler } from './context.js';

export const putBuffer: Handler<'put_buffer'> = (request, { relayBuffer }) => {
  // Copied: decoded bytes may share memory with the frame they came in.
  const content = request.content
    ? Buffer.from(request.content)
    : Buffer.from(request.text, 'utf8');
  relayBuffer.set({ turnId: request.label, text: request.text, content });
  return { size: content.length, turn_id: request.label };
};
