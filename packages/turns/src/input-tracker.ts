import { MAX_TYPED_CHARS } from './constants.js';

export type InputEvent =
  /** `edited`: keys the tracker cannot follow (cursor and history keys, Tab, Ctrl-R, Alt+key…)
   * changed the line since the last submit, so `text` may not be what the line held: the
   * application's echo of the line knows (a command recalled with ↑ has no typed text at all). */
  { type: 'submit'; text: string; edited?: true } | { type: 'interrupt' } | { type: 'escape' };

const PASTE_END = '\x1b[201~';

const enum I {
  Ground,
  Esc,
  Csi,
  Ss3,
  Paste,
}

/**
 * Follows the keystrokes written to a PTY to know what the user typed: printable text,
 * backspace, Ctrl-U/Ctrl-W, bracketed pastes (\x1b[200~ … \x1b[201~, newlines inside are text),
 * Enter (\r or \n) = submit, Ctrl-C = interrupt, a lone Esc key press = escape. Cursor keys are
 * ignored (their edits cannot be followed without the application's line editor): a submit
 * after one says so (`edited`). Input may be split anywhere across calls.
 */
export class InputTracker {
  private typed = '';
  private state: I = I.Ground;
  private params = '';
  /** The paste so far (capped at MAX_TYPED_CHARS), in parts: no re-scan per character. */
  private pasteParts: string[] = [];
  private pasteLength = 0;
  /** How many characters of PASTE_END the latest paste characters matched. */
  private markerMatched = 0;
  private lastWasCr = false;
  /** A key whose effect on the line is the application's own came since the last submit. */
  private edited = false;
  private readonly decoder = new TextDecoder('utf-8');

  /** Forgets what was typed since the last submit (a full-screen program took those keys). */
  clear(): void {
    this.typed = '';
    this.edited = false;
  }

  /** What has been typed since the last submit. */
  get pending(): string {
    return this.typed;
  }

  feed(data: Uint8Array | string): InputEvent[] {
    const text = typeof data === 'string' ? data : this.decoder.decode(data, { stream: true });
    const events: InputEvent[] = [];
    for (const ch of text) this.char(ch, events);
    if (this.state === I.Esc) {
      // A key press arrives in one write: an ESC that ends it is the Esc key, not a sequence start.
      this.state = I.Ground;
      this.edited = true; // vi mode: what follows are commands (k recalls), not text
      events.push({ type: 'escape' });
    }
    return events;
  }

  private char(ch: string, events: InputEvent[]): void {
    const wasCr = this.lastWasCr;
    this.lastWasCr = false;
    switch (this.state) {
      case I.Ground:
        break;
      case I.Esc:
        if (ch === '[') {
          this.state = I.Csi;
          this.params = '';
        } else if (ch === 'O') this.state = I.Ss3;
        else if (ch !== '\x1b') {
          this.state = I.Ground; // Alt+key: not text, but it may edit the line (Alt-. inserts)
          this.edited = true;
        }
        return;
      case I.Csi: {
        const c = ch.codePointAt(0)!;
        if (c >= 0x40 && c <= 0x7e) {
          this.state = this.params === '200' && ch === '~' ? I.Paste : I.Ground;
          // A cursor or history key (↑ recalls a whole line), Home, Delete…
          if (this.state === I.Ground) this.edited = true;
          this.pasteParts = [];
          this.pasteLength = 0;
          this.markerMatched = 0;
        } else if (this.params.length < 32) this.params += ch;
        return;
      }
      case I.Ss3:
        this.state = I.Ground;
        this.edited = true; // cursor keys in application mode
        return;
      case I.Paste:
        // Linear in the paste's length: the end marker is matched character by character
        // (it starts with ESC, which occurs nowhere else in it, so no backtracking is needed).
        if (ch === PASTE_END[this.markerMatched]) {
          if (++this.markerMatched === PASTE_END.length) {
            this.append(this.pasteParts.join('').replace(/\r\n?/gu, '\n'));
            this.pasteParts = [];
            this.pasteLength = 0;
            this.markerMatched = 0;
            this.state = I.Ground;
          }
          return;
        }
        if (this.markerMatched > 0) {
          this.pasteText(PASTE_END.slice(0, this.markerMatched));
          this.markerMatched = ch === PASTE_END[0] ? 1 : 0;
          if (this.markerMatched) return;
        }
        this.pasteText(ch);
        return;
    }
    switch (ch) {
      case '\r':
        this.submit(events);
        this.lastWasCr = true;
        return;
      case '\n':
        if (!wasCr) this.submit(events); // \r\n from some terminals is one Enter
        return;
      case '\x03':
        this.typed = '';
        this.edited = false;
        events.push({ type: 'interrupt' });
        return;
      case '\x7f':
      case '\b': {
        const chars = Array.from(this.typed);
        chars.pop();
        this.typed = chars.join('');
        return;
      }
      case '\x15':
        this.typed = ''; // to the cursor: after a cursor key, part of the line may stay
        return;
      case '\x17':
        this.typed = this.typed.replace(/\S*\s*$/u, '');
        return;
      case '\x1b':
        this.state = I.Esc;
        return;
    }
    if (ch.codePointAt(0)! < 0x20) {
      // Other control keys are not text, but Tab completes, Ctrl-R and Ctrl-P recall, Ctrl-A
      // moves, Ctrl-K and Ctrl-Y cut and yank: the line is the application's to know.
      this.edited = true;
      return;
    }
    this.append(ch);
  }

  private pasteText(s: string): void {
    if (this.pasteLength >= MAX_TYPED_CHARS) return;
    const part = s.slice(0, MAX_TYPED_CHARS - this.pasteLength);
    this.pasteParts.push(part);
    this.pasteLength += part.length;
  }

  private append(s: string): void {
    if (this.typed.length < MAX_TYPED_CHARS)
      this.typed += s.slice(0, MAX_TYPED_CHARS - this.typed.length);
  }

  private submit(events: InputEvent[]): void {
    events.push({ type: 'submit', text: this.typed, ...(this.edited ? { edited: true } : {}) });
    this.typed = '';
    this.edited = false;
  }
}
