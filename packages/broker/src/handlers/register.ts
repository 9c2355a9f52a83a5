import { DEFAULT_COLS, DEFAULT_ROWS } from '../constants.js';
import { HandlerError, type Handler } from './context.js';
import { currentTurnConfig } from '../turn-config/session-preset.js';

/** A wrapper registers a session it runs itself (clippy's v0 model); it ends with the connection. */
export const register: Handler<'register'> = (request, context) => {
  const { sessions, connection } = context;
  if (connection.role !== 'wrapper') {
    throw new HandlerError(
      'not_wrapper',
      'only connections with role wrapper may register sessions',
    );
  }
  if (sessions.nameTaken(request.session)) {
    throw new HandlerError(
      'duplicate_session',
      `a live session is already named '${request.session}'`,
    );
  }
  // Read before the session exists: a broken settings file leaves nothing half-made.
  const config = currentTurnConfig();
  const session = sessions.create({
    name: request.session,
    kind: request.kind ?? 'wrapper',
    command: request.command ?? '',
    args: [],
    cwd: request.cwd ?? '',
    cols: DEFAULT_COLS,
    rows: DEFAULT_ROWS,
    preset: request.pattern,
    pattern: undefined,
    pty: null,
    pid: request.pid,
    // Its turns come from the wrapper (turn_completed): a ring, no detector.
    turns: { preset: null, config },
  });
  connection.registered.add(session);
  return { session: session.id, name: session.name };
};
