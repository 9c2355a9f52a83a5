import type { ErrorCode } from '@clippy/protocol';

/**
 * An expected failure of a request (no such session, no turn, target busy, clipboard failed,
 * ...): thrown by handlers and by the code they call alike, and answered as
 * `{status: 'error', error: code, message}`; never logged as a fault.
 */
export class HandlerError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}
