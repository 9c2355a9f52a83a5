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

/** ESC: every focus report and every multi-byte encoding of a detach key starts with it. */
const ESC = 0x1b;

/**
 * Chunks up to this long are looked through byte by byte for anything the filter acts on; a
 * keystroke then costs no native search (measured in the daemon with keys typed 50 ms apart, on
 * cold caches: from the filter's start to the session's input, 39 µs with the four searches).
 * Longer chunks (pastes) take the general way, whose searches are memchr.
 */
const PLAIN_SCAN_MAX_BYTES = 64;

/**
 * What becomes of the user's keystrokes on their way to a session, wherever they are read (the
 * attach client in relay mode, the daemon in direct mode): focus reports are taken out, the
 * detach key ends the input, an observer's keys go nowhere. One copy, so both modes behave alike.
 */
export class InputFilter {
  private readonly scanner: DetachScanner;
  /** The bytes a focus report or a detach key can start with (1: may start one). */
  private readonly starts = new Uint8Array(256);

  constructor(
    detachKey: readonly Uint8Array[],
    private readonly handlers: InputFilterHandlers,
    /** Observers only watch: their keystrokes (but the detach key) go nowhere. */
    private readonly interactive: boolean,
  ) {
    this.scanner = new DetachScanner(detachKey);
    this.starts[ESC] = 1;
    for (const encoding of detachKey) if (encoding.length > 0) this.starts[encoding[0]!] = 1;
  }

  /** Whether the detach key has been typed (nothing more is passed on). */
  get detached(): boolean {
    return this.scanner.detached;
  }

  /**
   * Filters one chunk of keystrokes. `chunk` need only stay valid during the call: handlers
   * that keep bytes copy them.
   */
  feed(chunk: Buffer): void {
    if (this.scanner.detached) return;
    const { handlers } = this;
    if (chunk.length <= PLAIN_SCAN_MAX_BYTES && this.plain(chunk)) {
      if (this.interactive && chunk.length > 0) handlers.input(chunk);
      return;
    }
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

  /** Whether no byte of `chunk` can start a focus report or the detach key. */
  private plain(chunk: Buffer): boolean {
    for (let i = 0; i < chunk.length; i++) if (this.starts[chunk[i]!] === 1) return false;
    return true;
  }
}
