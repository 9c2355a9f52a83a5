import { EXIT } from './exit-codes.js';

/** An error meant for the user: its message is printed as is, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A CliError, also one made by another copy of this module: the bundled entry (clippy.cjs)
 * loads the parts it reaches through `import()` from dist/, with their own copy of this class.
 */
export function isCliError(err: unknown): err is CliError {
  return (
    err instanceof CliError ||
    (err instanceof Error &&
      err.name === 'CliError' &&
      typeof (err as { exitCode?: unknown }).exitCode === 'number')
  );
}

/**
 * The daemon went away while a request waited for its answer (the client's
 * ConnectionClosedError): exit 69 like any other "daemon not there". Matched by name so that
 * this module, loaded by every command, does not load the client.
 */
function isDaemonGone(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConnectionClosedError';
}

/** Prints an error the way every command does and returns the exit code to use. */
export function reportError(err: unknown): number {
  if (isCliError(err)) {
    process.stderr.write(`clippy: ${err.message}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`clippy: ${message}\n`);
  if (process.env.CLIPPY_DEBUG && err instanceof Error && err.stack) {
    process.stderr.write(`${err.stack}\n`);
  }
  return isDaemonGone(err) ? EXIT.noBroker : EXIT.failure;
}
