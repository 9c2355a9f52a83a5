import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import type { ScreenSnapshot } from '@clippy/turns';
import { SCREEN_BACKLOG_HIGH, SCREEN_BACKLOG_LOW, SCROLLBACK_LINES } from '../constants.js';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

type HeadlessTerminal = InstanceType<typeof Terminal>;

interface SnapshotWaiter {
  target: number;
  resolve: (replay: string) => void;
}

/**
 * A session's screen model: a headless xterm fed with exactly the bytes forwarded to clients,
 * serialized on attach so that a new client sees the current screen (VS Code's pty host does
 * the same). It counts bytes fed and bytes parsed so a snapshot is taken at a known point of
 * the output stream: the replay covers bytes [0, n) and live output continues at n.
 */
export class Screen {
  private readonly term: HeadlessTerminal;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private fed = 0;
  private parsed = 0;
  private waiters: SnapshotWaiter[] = [];
  private cursorHidden = false;
  private disposed = false;
  /** Called after each fed chunk was parsed (screen-based turn detection reads the screen then). */
  onParsed: (() => void) | null = null;
  /** True while too many fed bytes wait to be parsed: the session pauses its PTY meanwhile. */
  overloaded = false;

  /** `onOverloadChange` is called whenever `overloaded` flips. */
  constructor(
    cols: number,
    rows: number,
    private readonly onOverloadChange: () => void = () => {},
    private readonly scrollback = SCROLLBACK_LINES,
  ) {
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer as unknown as Parameters<HeadlessTerminal['loadAddon']>[0]);
    // The serialize addon does not restore cursor visibility (DECTCEM); track it ourselves.
    // Returning false lets xterm's own handler run too.
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
      if (params.includes(25)) this.cursorHidden = false;
      return false;
    });
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
      if (params.includes(25)) this.cursorHidden = true;
      return false;
    });
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Bytes handed to `write` so far. */
  get bytesFed(): number {
    return this.fed;
  }

  /** Bytes fed and not yet parsed. */
  get backlog(): number {
    return this.fed - this.parsed;
  }

  /** Whether the application turned bracketed paste on (`ESC[?2004h`), as parsed so far. */
  get bracketedPaste(): boolean {
    return this.term.modes.bracketedPasteMode;
  }

  /** Feeds output bytes (after they were forwarded to clients: the screen is never on the hot path). */
  write(chunk: Uint8Array): void {
    if (this.disposed) return;
    this.fed += chunk.length;
    const length = chunk.length;
    try {
      this.term.write(chunk, () => this.afterParse(length));
    } catch {
      // xterm refused the data (its own overflow guard): count it so snapshots never wait forever.
      this.afterParse(length);
    }
    if (!this.overloaded && this.fed - this.parsed > SCREEN_BACKLOG_HIGH) {
      this.overloaded = true;
      this.onOverloadChange();
    }
  }

  private afterParse(length: number): void {
    this.parsed += length;
    this.settleWaiters();
    if (this.overloaded && this.fed - this.parsed < SCREEN_BACKLOG_LOW) {
      this.overloaded = false;
      this.onOverloadChange();
    }
    this.onParsed?.();
  }

  resize(cols: number, rows: number): void {
    if (this.disposed || (cols === this.term.cols && rows === this.term.rows)) return;
    this.term.resize(cols, rows);
  }

  /**
   * Resolves with the replay of the screen as it stands after exactly the bytes fed so far
   * (`bytesFed` at the time of the call), however much is fed meanwhile.
   */
  snapshot(): Promise<string> {
    if (this.disposed) return Promise.resolve('');
    if (this.parsed === this.fed) return Promise.resolve(this.serialize());
    return new Promise((resolve) => this.waiters.push({ target: this.fed, resolve }));
  }

  /** Plain text of the visible screen, one string per row (for tests and the turn detector). */
  visibleLines(): string[] {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    }
    return lines;
  }

  /** The rendered buffer (scrollback + viewport) as text, for the turn detector. */
  turnSnapshot(): ScreenSnapshot {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++)
      lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return { lines, viewportTop: buffer.viewportY, rows: this.term.rows, cols: this.term.cols };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onParsed = null;
    for (const w of this.waiters) w.resolve('');
    this.waiters = [];
    this.term.dispose();
  }

  private settleWaiters(): void {
    // Write callbacks run after their chunk is parsed and before the next one is, so at the
    // callback of the chunk ending at `target` the model holds exactly the bytes [0, target).
    while (this.waiters.length > 0 && this.waiters[0]!.target <= this.parsed) {
      this.waiters.shift()!.resolve(this.serialize());
    }
  }

  private serialize(): string {
    let replay = this.serializer.serialize({ scrollback: this.scrollback });
    // Always state cursor visibility: the client's terminal may have it hidden from before.
    replay += this.cursorHidden ? '\x1b[?25l' : '\x1b[?25h';
    return replay;
  }
}
