/**
 * Finds the OSC sequences (`ESC ] payload BEL` or `ESC ] payload ESC \`) in a program's output,
 * chunk by chunk (a sequence may be split between chunks): where agents report their own state —
 * the window title (`0;✳ Claude Code`, `2;…`), Codex's `7501;state=working`.
 */

/** Longest payload kept: titles and status reports are short; a longer sequence (a clipboard
 * copy, an image) is skipped whole. */
export const MAX_OSC_PAYLOAD_BYTES = 512;

const ESC = 0x1b;
const BEL = 0x07;
const OSC_START = 0x5d; // ']'
const ST_END = 0x5c; // '\'
/** CAN and SUB abort a sequence. */
const CAN = 0x18;
const SUB = 0x1a;

type State = 'text' | 'esc' | 'osc' | 'osc-esc';

export class OscScanner {
  private state: State = 'text';
  private payload: number[] = [];
  private tooLong = false;
  private readonly decoder = new TextDecoder();

  /** The payloads of the sequences that end in this chunk, in order. */
  scan(chunk: Uint8Array): string[] {
    const out: string[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'text') {
        const at = chunk.indexOf(ESC, i);
        if (at < 0) break;
        this.state = 'esc';
        i = at + 1;
        continue;
      }
      const b = chunk[i++]!;
      switch (this.state) {
        case 'esc':
          if (b === OSC_START) this.start();
          else if (b !== ESC) this.state = 'text';
          break;
        case 'osc':
          if (b === BEL) this.end(out);
          else if (b === ESC) this.state = 'osc-esc';
          else if (b === CAN || b === SUB) this.state = 'text';
          else this.add(b);
          break;
        case 'osc-esc':
          if (b === ST_END) this.end(out);
          // Another ESC ends the unfinished sequence and starts a new one.
          else if (b === OSC_START) this.start();
          else this.state = b === ESC ? 'esc' : 'text';
          break;
      }
    }
    return out;
  }

  private start(): void {
    this.state = 'osc';
    this.payload = [];
    this.tooLong = false;
  }

  private add(b: number): void {
    if (this.payload.length < MAX_OSC_PAYLOAD_BYTES) this.payload.push(b);
    else this.tooLong = true;
  }

  private end(out: string[]): void {
    this.state = 'text';
    if (!this.tooLong) out.push(this.decoder.decode(new Uint8Array(this.payload)));
    this.payload = [];
  }
}
