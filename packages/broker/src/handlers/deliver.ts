import { writeFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { SinkSchema } from '@clippy/protocol';
import { HandlerError, findLiveSession, type Handler } from './context.js';
import { bufferEmpty } from './turn-stubs.js';

export const deliver: Handler<'deliver'> = async (request, context) => {
  const sink = SinkSchema.safeParse(request.sink);
  if (!sink.success) {
    throw new HandlerError(
      'unknown_sink',
      `unknown sink '${request.sink}': use inject, file or clipboard`,
    );
  }
  if (sink.data === 'inject' && !request.session) {
    throw new HandlerError('missing_field', "deliver: missing field 'session' (target of inject)");
  }
  if (sink.data === 'file' && !request.path) {
    throw new HandlerError('missing_field', "deliver: missing field 'path' (target of file)");
  }
  const target = sink.data === 'inject' ? findLiveSession(context, request.session!) : null;
  const buffer = context.broker.relayBuffer ?? bufferEmpty();
  const data = request.raw ? buffer.content : Buffer.from(buffer.text, 'utf8');
  if (sink.data === 'file') {
    const path = request.path!;
    if (!isAbsolute(path))
      throw new HandlerError('invalid_argument', `path must be absolute (got '${path}')`);
    try {
      await writeFile(path, data);
    } catch (err) {
      throw new HandlerError(
        'file_write_failed',
        `could not write ${path}: ${(err as Error).message}`,
      );
    }
    return { size: data.length, turn_id: buffer.turnId };
  }
  if (sink.data === 'clipboard') {
    throw new HandlerError(
      'clipboard_failed',
      'the broker has no clipboard provider yet; use the file sink',
    );
  }
  const submitted = await target!.send(data.toString('utf8'), request.enter ?? true);
  return { size: data.length, turn_id: buffer.turnId, submitted };
};
