/** Process exit codes shared by every command (documented in docs/cli.md). */
export const EXIT = {
  ok: 0,
  /** Something failed: the message on stderr names it. */
  failure: 1,
  /** The command line was wrong (unknown option, missing argument). */
  usage: 64,
  /** The broker could not be reached or started. */
  noBroker: 69,
  /** A wait ran out of time (`wait`, `ask`). */
  timeout: 124,
} as const;
