import type { ClippyClient } from '@clippy/client';
import { InputFilter, detachKeyEncodings, type DetachKey } from '@clippy/protocol';

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
 * The input path of relay mode: the user's keystrokes become `input` notifications to the
 * session, until the detach key (the filtering is InputFilter's, as in the daemon's direct
 * mode). Starts reading stdin; dispose() stops.
 */
export class InputForwarder {
  private readonly filter: InputFilter;
  private readonly onData = (chunk: Buffer) => this.filter.feed(chunk);

  constructor(private readonly opts: InputForwarderOptions) {
    const { client, session } = opts;
    this.filter = new InputFilter(
      detachKeyEncodings(opts.detachKey),
      {
        // A notification, not a request: a response per keystroke would wake this process (and
        // the daemon) once more per key, next to the echo it waits for. Nothing is lost without
        // it: a session that is gone says so with its `exit` push, which ends the attach.
        input: (data) => client.notify('input', { session, data: Buffer.from(data) }),
        detach: () => opts.onDetach(),
        ...(opts.onFocus ? { focus: opts.onFocus } : {}),
        ...(opts.programWantsFocus ? { programWantsFocus: opts.programWantsFocus } : {}),
      },
      opts.interactive,
    );
    opts.stdin.on('data', this.onData);
    opts.stdin.resume();
  }

  dispose(): void {
    this.opts.stdin.off('data', this.onData);
  }
}
