// A headless xterm for tests: renders real output the way the broker's screen model does and
// returns ScreenSnapshots (whole buffer, right-trimmed) for the detector and the classifier.
import pkg from '@xterm/headless';
import { useUserWidths } from '@clippy/testkit/xterm-widths';
import type { ScreenSnapshot } from '../detector.js';

const { Terminal } = pkg;

export class XtermScreen {
  private readonly term: InstanceType<typeof Terminal>;

  constructor(
    public cols: number,
    public rows: number,
  ) {
    this.term = new Terminal({ cols, rows, scrollback: 1000, allowProposedApi: true });
    useUserWidths(this.term);
  }

  write(data: Uint8Array | string): Promise<void> {
    return new Promise((resolve) => this.term.write(data, resolve));
  }

  snapshot(): ScreenSnapshot {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++)
      lines.push((buf.getLine(i)?.translateToString(true) ?? '').replace(/\s+$/u, ''));
    return { lines, viewportTop: buf.viewportY, rows: this.rows, cols: this.cols };
  }

  /** Resizes like a terminal window: xterm reflows the rows that no longer fit. */
  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
  }

  dispose(): void {
    this.term.dispose();
  }
}
