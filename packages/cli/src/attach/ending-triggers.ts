import { ENDING_SIGNALS, signalled, terminalGone, type Ending } from './ending.js';

/**
 * What ends an attach from outside the session: a signal to clippy (SIGTERM, SIGHUP, SIGINT),
 * or a terminal that vanished, which fails writes with EIO (end instead of crashing).
 * dispose() removes the handlers.
 */
export class EndingTriggers {
  private readonly handlers = ENDING_SIGNALS.map((signal) => ({
    signal,
    handler: () => this.end(signalled(signal)),
  }));
  private readonly onStdoutError = () => this.end(terminalGone());

  constructor(
    private readonly stdout: NodeJS.WriteStream,
    private readonly end: (ending: Ending) => void,
  ) {
    for (const { signal, handler } of this.handlers) process.on(signal, handler);
    stdout.on('error', this.onStdoutError);
  }

  dispose(): void {
    for (const { signal, handler } of this.handlers) process.off(signal, handler);
    this.stdout.off('error', this.onStdoutError);
  }
}
