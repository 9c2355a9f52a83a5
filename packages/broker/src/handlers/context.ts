import type { ErrorCode, Request, Result, ResultType } from '@clippy/protocol';
import type { Broker } from '../server.js';
import type { ClientConnection } from '../connection.js';
import type { Session } from '../sessions/session.js';

/** An expected failure: answered as `{status: 'error', error: code, message}`; never logged as a fault. */
export class HandlerError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}

export interface HandlerContext {
  readonly broker: Broker;
  readonly connection: ClientConnection;
  /** Runs `fn` right after the response was sent (e.g. attach: live output after the replay). */
  afterResponse(fn: () => void): void;
}

export type Handler<T extends ResultType> = (
  request: Request<T>,
  context: HandlerContext,
) => Result<T> | Promise<Result<T>>;

export type HandlerTable = { [T in ResultType]: Handler<T> };

/** The session a request names (ID or name), or a `session_not_found` answer. */
export function findSession(context: HandlerContext, ref: string): Session {
  const session = context.broker.table.resolve(ref);
  if (!session)
    throw new HandlerError('session_not_found', `no session has the ID or name '${ref}'`);
  return session;
}

/** Like findSession, but the session must still be running. */
export function findLiveSession(context: HandlerContext, ref: string): Session {
  const session = findSession(context, ref);
  if (!session.live) {
    throw new HandlerError(
      'session_exited',
      `session '${session.name}' (${session.id}) has exited`,
    );
  }
  return session;
}
