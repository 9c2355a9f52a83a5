import { isAbsolute } from 'node:path';
import { encodeFrame, type Push } from '@clippy/protocol';
import { HandlerError, findSession, type Handler, type SessionsPort } from './context.js';
import { copyToClipboard } from '../relay/clipboard.js';
import { deliverToFile } from '../relay/file-delivery.js';
import { injectInto } from '../relay/inject-into-session.js';

/** Largest text sent as OSC 52: terminals that support it cap the sequence around 100 kB. */
const OSC52_MAX_BYTES = 74_994;

/** Delivers the relay buffer to a sink: `inject` (a session, = paste), `file` (overwrite), `clipboard`. */
export const deliver: Handler<'deliver'> = async (request, context) => {
  const { sessions, relayBuffer, daemon } = context;
  const sink = request.sink;
  if (sink !== 'inject' && sink !== 'file' && sink !== 'clipboard') {
    throw new HandlerError('unknown_sink', `unknown sink '${sink}': use inject, file or clipboard`);
  }
  if (sink === 'inject' && !request.session)
    throw new HandlerError('missing_field', 'sink inject needs `session`');
  if (sink === 'file' && !request.path)
    throw new HandlerError('missing_field', 'sink file needs `path`');
  const entry = relayBuffer.get();
  if (!entry)
    throw new HandlerError('buffer_empty', 'the relay buffer is empty: capture a turn first');
  const data = request.raw ? entry.content : Buffer.from(entry.text, 'utf8');
  if (sink === 'inject') {
    const session = findSession(context, request.session!);
    const result = await injectInto(sessions, session, entry, request);
    return { size: data.length, turn_id: entry.turnId, submitted: result.submitted };
  }
  if (sink === 'file') {
    if (!isAbsolute(request.path!)) {
      throw new HandlerError(
        'invalid_argument',
        `the file path must be absolute (got '${request.path}')`,
      );
    }
    await deliverToFile(request.path!, data);
    return { size: data.length, turn_id: entry.turnId };
  }
  const provider = await copyToClipboard(data, {
    env: process.env,
    osc52: data.length <= OSC52_MAX_BYTES ? (seq) => sendOsc52(sessions, seq) : undefined,
  });
  daemon.log.info({ provider, bytes: data.length }, 'relay buffer copied to the clipboard');
  return { size: data.length, turn_id: entry.turnId };
};

/**
 * Writes an OSC 52 sequence to attached clients' terminals as `output` of the session they
 * show (never into the session's screen or replay): their terminal sets the clipboard.
 */
function sendOsc52(sessions: SessionsPort, seq: Uint8Array): boolean {
  let sent = false;
  for (const [client, [session]] of sessions.attachedClients()) {
    if (!session) continue;
    client.send(
      encodeFrame({
        type: 'output',
        id: 0,
        session: session.id,
        data: seq,
      } satisfies Push<'output'>),
    );
    sent = true;
  }
  return sent;
}
