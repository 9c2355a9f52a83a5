import { BrokerError } from '@clippy/protocol';

/** Local client failures (they never cross the wire; broker answers are `BrokerError`s). */

/** The broker is not running at that socket and we were not asked to start it. */
export class DaemonNotRunningError extends Error {
  constructor(
    readonly socketPath: string,
    cause?: Error,
  ) {
    super(
      `the clippy daemon is not running (nothing answers at ${socketPath}). ` +
        'Start it with `clippy daemon start`.',
      cause ? { cause } : undefined,
    );
    this.name = 'DaemonNotRunningError';
  }
}

/** Starting the daemon was attempted and did not produce a socket that answers. */
export class DaemonStartError extends Error {
  constructor(
    message: string,
    /** The daemon's exit code when it exited at start-up (e.g. DAEMON_EXIT_INVALID_CONFIG). */
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'DaemonStartError';
  }
}

/** A request got no response in time; the connection stays usable. */
export class RequestTimeoutError extends Error {
  constructor(
    readonly requestType: string,
    readonly timeoutMs: number,
  ) {
    super(`the broker did not answer '${requestType}' within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** The connection closed (by us, or because the daemon went away) before an answer came. */
export class ConnectionClosedError extends Error {
  constructor(message = 'the connection to the clippy daemon closed') {
    super(message);
    this.name = 'ConnectionClosedError';
  }
}

/** The broker sent something that is not what the protocol says. */
export class ProtocolViolationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolViolationError';
  }
}

/**
 * The daemon refused the handshake: it speaks another protocol version (it was started by
 * another clippy). Still a BrokerError (`version_mismatch`); says which version and which pid.
 */
export class VersionMismatchError extends BrokerError {
  constructor(
    message: string,
    readonly brokerVersion: number | undefined,
    readonly brokerPid: number | undefined,
  ) {
    super('version_mismatch', message);
    this.name = 'VersionMismatchError';
  }
}
