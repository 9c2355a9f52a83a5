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

/** Prints an error the way every command does and returns the exit code to use. */
export function reportError(err: unknown): number {
  if (err instanceof CliError) {
    process.stderr.write(`clippy: ${err.message}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`clippy: ${message}\n`);
  if (process.env.CLIPPY_DEBUG && err instanceof Error && err.stack) {
    process.stderr.write(`${err.stack}\n`);
  }
  return EXIT.failure;
}
