import { findSession, type Handler } from './context.js';

export const attach: Handler<'attach'> = async (request, context) => {
  const session = findSession(context, request.session);
  const { connection } = context;
  // session.attach registers the client synchronously; recording it on the connection in the
  // same tick means a disconnect during the snapshot still detaches it.
  const attaching = session.attach(connection, request.mode, request.cols, request.rows);
  connection.attached.add(session);
  const { attachment, replay } = await attaching;
  // Live output held since the snapshot point goes out right after the response with the replay.
  context.afterResponse(() => attachment.flushPending());
  return {
    session: session.id,
    name: session.name,
    cols: session.cols,
    rows: session.rows,
    state: session.state,
    replay: Buffer.from(replay, 'utf8'),
    exited: !session.live,
    exit_code: session.exitCode,
    exit_signal: session.exitSignal,
  };
};
