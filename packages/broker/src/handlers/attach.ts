import { encodeFrame, type Push } from '@clippy/protocol';
import type { Session } from '../sessions/session.js';
import { DirectTerminal } from '../terminal/direct-terminal.js';
import { openClientTerminal } from '../terminal/open-terminal.js';
import { HandlerError, findSession, type Handler, type HandlerContext } from './context.js';

export const attach: Handler<'attach'> = async (request, context) => {
  const session = findSession(context, request.session);
  const { connection } = context;
  if (request.terminal !== undefined && (request.pid === undefined || !request.detach_key)) {
    throw new HandlerError('invalid_argument', 'attach with terminal needs pid and detach_key');
  }
  // Direct attach: the daemon reads and writes the client's terminal itself. Not for a session
  // that has exited (there is nothing to read or write: the client paints the replay itself).
  let terminal: DirectTerminal | null = null;
  let refused: string | undefined;
  if (request.terminal !== undefined) {
    const opened = session.live
      ? openClientTerminal(request.terminal, request.pid!)
      : ({ ok: false, reason: 'the session has exited' } as const);
    if (!opened.ok) refused = opened.reason;
    else {
      try {
        terminal = directTerminal(opened.fd, session, context, request);
      } catch (err) {
        refused = (err as Error).message;
      }
    }
  }
  // The session records the client synchronously (before the snapshot): a disconnect during the
  // snapshot still detaches it.
  const { attachment, replay } = await session.attach(
    connection,
    request.mode,
    request.cols,
    request.rows,
    terminal ?? undefined,
    request.ignore_size ?? false,
  );
  if (request.pid !== undefined) context.focus.setPid(connection, request.pid);
  // Its screen, with the latest answer, is in front of the user now.
  context.notify.read(session);
  const replayBytes = Buffer.from(replay, 'utf8');
  // Painted into the terminal before the answer; the answer then carries no replay.
  terminal?.start(replayBytes);
  // Live output held since the snapshot point goes out right after the response with the replay.
  context.afterResponse(() => attachment.flushPending());
  return {
    session: session.id,
    name: session.name,
    cols: session.cols,
    rows: session.rows,
    state: session.state,
    replay: terminal ? Buffer.alloc(0) : replayBytes,
    exited: !session.live,
    exit_code: session.exitCode,
    exit_signal: session.exitSignal,
    ...(request.terminal !== undefined
      ? { terminal: terminal !== null, ...(refused ? { terminal_refused: refused } : {}) }
      : {}),
  };
};

/** The attachment's sink when the daemon took the client's terminal; its keys go to the session. */
function directTerminal(
  fd: number,
  session: Session,
  context: HandlerContext,
  request: { mode: 'interactive' | 'observer'; detach_key?: Uint8Array[] | undefined },
): DirectTerminal {
  const { connection, focus } = context;
  const farewell = (reason: 'detach_key' | 'terminal_lost', message: string) =>
    encodeFrame({
      type: 'detached',
      id: 0,
      session: session.id,
      reason,
      message,
    } satisfies Push<'detached'>);
  return new DirectTerminal({
    fd,
    connection,
    detachKey: request.detach_key!,
    modes: session.output.modes,
    interactive: request.mode === 'interactive',
    size: () => session.clientSize(connection),
    input: (data) => {
      if (session.live && session.kind === 'pty') session.input(data, connection);
    },
    focus: (focused) => {
      if (!session.isAttached(connection)) return;
      if (focused) {
        focus.focusIn(session, connection);
        context.notify.read(session);
      } else focus.focusOut(session, connection);
    },
    detachKeyTyped: () =>
      void session.detach(connection, farewell('detach_key', 'the detach key was typed')),
    failed: (err) => {
      context.daemon.log.info(
        { session: session.id, err: err.message },
        'direct attach: the terminal failed; detached',
      );
      void session.detach(
        connection,
        farewell('terminal_lost', `its terminal failed: ${err.message}`),
      );
    },
  });
}
