import type { ClippyClient } from '@clippy/client';
import {
  ACK_INTERVAL_BYTES,
  CLEAR_SCREEN,
  cursorAfterReplay,
  type ModeTracker,
} from '@clippy/protocol';

/** How long the end of an attach waits for the terminal to take pending output. */
export const EXIT_FLUSH_TIMEOUT_MS = 2_000;

export interface OutputWriterOptions {
  stdout: NodeJS.WriteStream;
  client: ClippyClient;
  /** Follows the modes the output turns on, for the terminal's restore. */
  modes: ModeTracker;
  /** Observers do not ack: their pace never holds the session back. */
  interactive: boolean;
}

/**
 * The output path: the session's screen and output frames go to stdout as they are, and every
 * ACK_INTERVAL_BYTES the terminal has taken are acked so the broker keeps sending. stop() ends
 * the acks (the attach is ending); the writer owns no resource beyond that.
 */
export class OutputWriter {
  /** The session's ID, as the broker answered the attach: acks name it. */
  private session = '';
  private unacked = 0;
  private stopped = false;

  constructor(private readonly opts: OutputWriterOptions) {}

  /**
   * The broker answered the attach: paints the session's screen as it replayed it, on a
   * cleared terminal. Live output follows with write().
   */
  start(session: string, replay: Buffer): void {
    this.session = session;
    const { stdout, modes } = this.opts;
    if (stdout.isTTY) stdout.write(CLEAR_SCREEN);
    modes.feed(replay);
    stdout.write(replay);
    if (stdout.isTTY) stdout.write(cursorAfterReplay(replay));
  }

  /** One frame of live output. */
  write(data: Uint8Array): void {
    this.opts.modes.feed(data);
    const len = data.length;
    this.opts.stdout.write(data, () => {
      if (!this.opts.interactive || this.stopped) return;
      this.unacked += len;
      if (this.unacked >= ACK_INTERVAL_BYTES) {
        this.opts.client.notify('ack', { session: this.session, bytes: this.unacked });
        this.unacked = 0;
      }
    });
  }

  /** No more acks: the attach is ending. */
  stop(): void {
    this.stopped = true;
  }
}

/** Resolves once the terminal took what was written to it, or after EXIT_FLUSH_TIMEOUT_MS. */
export function flushOutput(stdout: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, EXIT_FLUSH_TIMEOUT_MS);
    stdout.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
