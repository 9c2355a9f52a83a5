import type { ErrorCode } from '@clippy/protocol';

/** An expected failure of a turn operation, carrying the wire error code it answers with. */
export class TurnError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TurnError';
  }
}
