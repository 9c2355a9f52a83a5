import type { ClippyClient } from '@clippy/client';
import { DetachScanner } from './detach-scanner.js';
import { splitFocusReports } from './focus-reports.js';
import type { DetachKey } from './detach-key.js';

export interface InputForwarderOptions {
  stdin: NodeJS.ReadStream;
  client: ClippyClient;
  /** The session's ID, as the broker answered the attach. */
  session: string;
  detachKey: DetachKey;
  /** Observers only watch: their keystrokes (but the detach key) go nowhere. */
  interactive: boolean;
  /** Called once, when the user types the detach key. */
  onDetach: () => void;
  /**
   * The terminal reported focus in (true) or out (false). Set: focus reports are taken out of
   * the input, and reach the program only when `programWantsFocus()` (it turned them on itself).
   */
  onFocus?: (focused: boolean) => void;
  programWantsFocus?: () => boolean;
}

/**
 * The input path: the user's keystrokes become `input` notifications to the session, until the
 * detach key. Starts reading stdin; dispose() stops.
 */
export class InputForwarder {
  private readonly scanner: DetachScanner;
  private readonly onData = (chunk: Buffer) => this.forward(chunk);

  constructor(private readonly opts: InputForwarderOptions) {
    this.scanner = new DetachScanner(opts.detachKey);
    opts.stdin.on('data', this.onData);
    opts.stdin.resume();
  }

  private forward(chunk: Buffer): void {
    if (this.scanner.detached) return;
    const split = this.opts.onFocus ? splitFocusReports(chunk) : null;
    if (split) {
      for (const focused of split.changes) this.opts.onFocus!(focused);
      if (!this.opts.programWantsFocus?.()) chunk = split.data;
      if (chunk.length === 0) return;
    }
    const n = this.scanner.scan(chunk);
    // A notification, not a request: a response per keystroke would wake this process (and
    // the daemon) once more per key, next to the echo it waits for. Nothing is lost without
    // it: a session that is gone says so with its `exit` push, which ends the attach.
    if (n > 0 && this.opts.interactive) {
      const data = n === chunk.length ? chunk : chunk.subarray(0, n);
      this.opts.client.notify('input', { session: this.opts.session, data: Buffer.from(data) });
    }
    if (this.scanner.detached) this.opts.onDetach();
  }

  dispose(): void {
    this.opts.stdin.off('data', this.onData);
  }
}
