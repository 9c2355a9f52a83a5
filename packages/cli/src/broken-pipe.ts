/**
 * `clippy show S | head`: once the reader has what it wants and closes the pipe, the next write
 * fails with EPIPE, which node raises as an unhandled error (a stack trace, exit 1). The command
 * is done then, as a program killed by SIGPIPE would be: it ends quietly, with success (as
 * ripgrep does), so a pipeline's status is the reader's.
 */
export function endQuietlyOnBrokenPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(0);
  });
}
