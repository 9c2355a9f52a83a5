import {
  BrokerError,
  ConnectionClosedError,
  DaemonNotRunningError,
  DaemonStartError,
  NoRuntimeDirError,
  RequestTimeoutError,
  VersionMismatchError,
} from '@clippy/client';
import { PROTOCOL_VERSION } from '@clippy/protocol';

/** A mistake or a situation the user can act on: its message is shown as it is. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/** A failure of talking to the daemon at `socket`, with what the user needs to know. */
export class DaemonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DaemonError';
  }
}

/** Socket errors that mean "something answers there, but not as a daemon would". */
const CANNOT_TALK = new Set(['EACCES', 'ENOTSOCK', 'ECONNRESET', 'EPIPE']);

/**
 * Says what went wrong in one line, for a person: the daemon's own message for its answers,
 * what to do for a daemon of another version; never a stack trace.
 */
export function messageOf(err: unknown, socket?: string): string {
  const at = socket ? ` at ${socket}` : '';
  if (err instanceof VersionMismatchError) {
    const pid = err.brokerPid === undefined ? '' : ` (pid ${err.brokerPid})`;
    return (
      `the running clippy daemon${pid}${at} speaks protocol version ${err.brokerVersion ?? '?'}, ` +
      `this extension speaks ${PROTOCOL_VERSION}: it was started by another version of clippy. ` +
      'Run `clippy daemon restart --force` to replace it (its sessions end then), or use an ' +
      'extension of its version.'
    );
  }
  if (err instanceof BrokerError) {
    // The daemon's message without the code BrokerError appends: the code is for scripts.
    const suffix = ` (${err.code})`;
    return err.message.endsWith(suffix) ? err.message.slice(0, -suffix.length) : err.message;
  }
  if (err instanceof RequestTimeoutError) {
    if (err.requestType === 'hello') {
      return `the clippy daemon${at} did not answer hello within ${err.timeoutMs} ms`;
    }
    return `the clippy daemon did not answer '${err.requestType}' within ${err.timeoutMs} ms`;
  }
  if (
    err instanceof UserError ||
    err instanceof DaemonError ||
    err instanceof DaemonNotRunningError ||
    err instanceof DaemonStartError ||
    err instanceof NoRuntimeDirError ||
    err instanceof ConnectionClosedError
  ) {
    return err.message;
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code && CANNOT_TALK.has(code)) {
    return `cannot talk to the clippy daemon${at}: ${(err as Error).message}`;
  }
  return `internal error: ${err instanceof Error ? err.message : String(err)}`;
}
