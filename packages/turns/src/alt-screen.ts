// Follows a program's switches to and from the terminal's alternate screen (`ESC[?1049h` /
// `ESC[?1049l`, and the older 1047 and 47): full-screen programs (less, vim, top) draw there,
// and nothing they draw is a prompt or an answer line.

const ESC = 0x1b;

/** Private modes that select the alternate screen. */
const ALT_MODES = new Set(['1049', '1047', '47']);

/** Longest parameter string followed (a mode list such as `?1049;1006` is short). */
const MAX_PARAMS = 32;

const enum S {
  Ground,
  Esc,
  Csi,
  Private,
  Other,
}

/** A switch found in a chunk: the byte index just after its sequence, and the new state. */
export interface AltSwitch {
  end: number;
  on: boolean;
}

/** A streaming scanner (sequences may be split across chunks at any byte). */
export class AltScreenScanner {
  private state: S = S.Ground;
  private params = '';
  private _on = false;

  /** Whether the alternate screen is shown after the last chunk scanned. */
  get on(): boolean {
    return this._on;
  }

  /** The switches in `chunk`, in order (usually none: one indexOf per chunk then). */
  scan(chunk: Uint8Array): AltSwitch[] {
    const out: AltSwitch[] = [];
    let i = 0;
    if (this.state === S.Ground) {
      i = chunk.indexOf(ESC);
      if (i < 0) return out;
    }
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      switch (this.state) {
        case S.Ground:
          if (b === ESC) this.state = S.Esc;
          else {
            const next = chunk.indexOf(ESC, i + 1);
            if (next < 0) return out;
            i = next - 1;
          }
          break;
        case S.Esc:
          this.state = b === 0x5b ? S.Csi : b === ESC ? S.Esc : S.Ground;
          break;
        case S.Csi:
          this.params = '';
          this.state = b === 0x3f ? S.Private : b === ESC ? S.Esc : S.Other;
          if (this.state === S.Other && b >= 0x40 && b <= 0x7e) this.state = S.Ground;
          break;
        case S.Private:
          if ((b >= 0x30 && b <= 0x39) || b === 0x3b) {
            if (this.params.length < MAX_PARAMS) this.params += String.fromCharCode(b);
          } else {
            this.state = b === ESC ? S.Esc : S.Ground;
            if (
              (b === 0x68 || b === 0x6c) &&
              this.params.split(';').some((p) => ALT_MODES.has(p))
            ) {
              const on = b === 0x68;
              if (on !== this._on) {
                this._on = on;
                out.push({ end: i + 1, on });
              }
            }
          }
          break;
        case S.Other:
          if (b >= 0x40 && b <= 0x7e) this.state = S.Ground;
          else if (b === ESC) this.state = S.Esc;
          break;
      }
    }
    return out;
  }
}
