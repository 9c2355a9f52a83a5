import { DetachScanner } from './detach-scanner.js';
import { splitFocusReports } from './focus-reports.js';

export interface InputFilterHandlers {
  /** Keystrokes for the program (not called for an observer, nor with nothing left). */
  input(data: Buffer): void;
  /** Called once, when the user types the detach key. */
  detach(): void;
  /**
   * The terminal reported focus in (true) or out (false). Set: focus reports are taken out of
   * the input, and reach the program only when `programWantsFocus()` (it turned them on itself).
   */
  focus?(focused: boolean): void;
  programWantsFocus?(): boolean;
}

/**
 * What becomes of the user's keystrokes on their way to a session, wherever they are read (the
 * attach client in relay mode, the daemon in direct mode): focus reports are taken out, the
 * detach key ends the input, an observer's keys go nowhere. One copy, so both modes behave alike.
 */
export class InputFilter {
  private readonly scanner: DetachScanner;

  constructor(
    detachKey: readonly Uint8Array[],
    private readonly handlers: InputFilterHandlers,
    /** Observers only watch: their keystrokes (but the detach key) go nowhere. */
    private readonly interactive: boolean,
  ) {
    this.scanner = new DetachScanner(detachKey);
  }

  /** Whether the detach key has been typed (nothing more is passed on). */
  get detached(): boolean {
    return this.scanner.detached;
  }

  feed(chunk: Buffer): void {
    if (this.scanner.detached) return;
    const { handlers } = this;
    const split = handlers.focus ? splitFocusReports(chunk) : null;
    if (split) {
      for (const focused of split.changes) handlers.focus!(focused);
      if (!handlers.programWantsFocus?.()) chunk = split.data;
      if (chunk.length === 0) return;
    }
    const n = this.scanner.scan(chunk);
    if (n > 0 && this.interactive)
      handlers.input(n === chunk.length ? chunk : chunk.subarray(0, n));
    if (this.scanner.detached) handlers.detach();
  }
}
