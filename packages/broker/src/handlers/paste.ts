import { HandlerError, findLiveSession, type Handler } from './context.js';
import { bufferEmpty } from './turn-stubs.js';

/** Injects the relay buffer into a session: its text (or raw content), then Enter unless told not to. */
export const paste: Handler<'paste'> = async (request, context) => {
  const session = findLiveSession(context, request.session);
  const buffer = context.broker.relayBuffer ?? bufferEmpty();
  if (session.kind !== 'pty') {
    throw new HandlerError(
      'invalid_argument',
      `session '${session.name}' has no broker-owned PTY to write to`,
    );
  }
  const text = request.raw ? buffer.content.toString('utf8') : buffer.text;
  const submitted = await session.send(text, request.enter ?? true);
  return {
    size: request.raw ? buffer.content.length : Buffer.byteLength(buffer.text),
    turn_id: buffer.turnId,
    submitted,
  };
};
