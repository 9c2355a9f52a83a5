import { findSession, type Handler } from './context.js';

export const attach: Handler<'attach'> = async (request, context) => {
  const session = findSession(context, request.session);
  const { connection } = context;
  // The session records the client synchronously (before the snapshot): a disconnect during the
  // snapshot still detaches it.
  const { attachment, replay } = await session.attach(
    connection,
    request.mode,
    request.cols,
    request.rows,
  );
  if (request.pid !== undefined) context.focus.setPid(connection, request.pid);
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
