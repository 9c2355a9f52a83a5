/** What the TUI agent's raw-mode input parser found. */
export type Key =
  | { kind: 'text'; bytes: Buffer; pasted: boolean }
  | { kind: 'enter' }
  | { kind: 'backspace' }
  | { kind: 'escape' }
  | { kind: 'up' }
  | { kind: 'down' }
  | { kind: 'ctrl-c' }
  | { kind: 'ctrl-d' };

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/**
 * Splits raw-mode input into keys, honouring bracketed paste: everything between the paste
 * markers is text (newlines and escapes included), even when a chunk boundary falls inside
 * a marker.
 */
export class KeyParser {
  private pending = Buffer.alloc(0);
  private inPaste = false;

  feed(chunk: Buffer): Key[] {
    let buf = Buffer.concat([this.pending, chunk]);
    this.pending = Buffer.alloc(0);
    const keys: Key[] = [];
    let text: number[] = [];
    const flushText = (pasted: boolean): void => {
      if (text.length) keys.push({ kind: 'text', bytes: Buffer.from(text), pasted });
      text = [];
    };
    while (buf.length) {
      if (this.inPaste) {
        const end = buf.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a possible partial end marker for the next chunk.
          const keep = partialSuffix(buf, PASTE_END);
          keys.push({
            kind: 'text',
            bytes: Buffer.from(buf.subarray(0, buf.length - keep)),
            pasted: true,
          });
          this.pending = Buffer.from(buf.subarray(buf.length - keep));
          return keys.filter((k) => k.kind !== 'text' || k.bytes.length > 0);
        }
        if (end > 0)
          keys.push({ kind: 'text', bytes: Buffer.from(buf.subarray(0, end)), pasted: true });
        buf = buf.subarray(end + PASTE_END.length);
        this.inPaste = false;
        continue;
      }
      const b = buf[0]!;
      if (b === 0x1b) {
        if (buf.length < PASTE_START.length && PASTE_START.startsWith(buf.toString('latin1'))) {
          // A key press comes in one write: a chunk that is just ESC is the Esc key. An ESC (or
          // marker start) ending a longer chunk is held: the rest of the sequence follows.
          if (buf.length === 1 && chunk.length === 1) {
            flushText(false);
            keys.push({ kind: 'escape' });
            buf = buf.subarray(1);
            continue;
          }
          flushText(false);
          this.pending = Buffer.from(buf);
          return keys;
        }
        if (buf.subarray(0, PASTE_START.length).toString('latin1') === PASTE_START) {
          flushText(false);
          this.inPaste = true;
          buf = buf.subarray(PASTE_START.length);
          continue;
        }
        if (buf[1] === 0x5b) {
          // Some other CSI: Up and Down (they move a dialog's cursor); others are skipped up to
          // their final byte.
          let i = 2;
          while (i < buf.length && (buf[i]! < 0x40 || buf[i]! > 0x7e)) i++;
          if (i === 2 && (buf[i] === 0x41 || buf[i] === 0x42)) {
            flushText(false);
            keys.push({ kind: buf[i] === 0x41 ? 'up' : 'down' });
          }
          buf = buf.subarray(i + 1);
          continue;
        }
        flushText(false);
        keys.push({ kind: 'escape' });
        buf = buf.subarray(1);
        continue;
      }
      buf = buf.subarray(1);
      if (b === 0x0d) {
        flushText(false);
        keys.push({ kind: 'enter' });
      } else if (b === 0x7f || b === 0x08) {
        flushText(false);
        keys.push({ kind: 'backspace' });
      } else if (b === 0x03) {
        flushText(false);
        keys.push({ kind: 'ctrl-c' });
      } else if (b === 0x04) {
        flushText(false);
        keys.push({ kind: 'ctrl-d' });
      } else {
        text.push(b);
      }
    }
    flushText(false);
    return keys;
  }
}

/** Length of the longest suffix of `buf` that is a proper prefix of `marker`. */
function partialSuffix(buf: Buffer, marker: string): number {
  for (let n = Math.min(marker.length - 1, buf.length); n > 0; n--) {
    if (buf.subarray(buf.length - n).toString('latin1') === marker.slice(0, n)) return n;
  }
  return 0;
}
