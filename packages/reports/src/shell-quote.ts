/** Characters that never need quoting in a POSIX shell word. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one argument for a POSIX shell: bare when safe, else single-quoted. */
export function shellQuote(arg: string): string {
  if (SAFE_WORD.test(arg)) return arg;
  // Inside single quotes nothing is special except the quote itself, which is closed, escaped, reopened.
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Joins argv into one command line that a POSIX shell splits back into the same argv. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
