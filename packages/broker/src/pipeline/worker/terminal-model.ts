import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import unicode11 from '@xterm/addon-unicode11';
import type { ScreenSnapshot } from '@clippy/turns';

const { Terminal } = headless;
const { SerializeAddon } = serialize;
const { Unicode11Addon } = unicode11;
type HeadlessTerminal = InstanceType<typeof Terminal>;

/**
 * A session's screen model: a headless xterm fed the session's output (what flood compaction
 * leaves of it), serialized for a replay when a client attaches (VS Code's pty host does the
 * same), rendered for a screen preset's detector. Bytes written and bytes parsed are counted so
 * that a replay is taken at a known point of the stream: it covers every byte written before it
 * was asked for.
 *
 * The xterm is made when it is first needed (output to parse, a replay, a rendering): a session
 * whose screen nobody read yet holds none (some 150 KB of objects each, measured), so a daemon
 * of many sessions nobody attached to spawns them faster, and the pipeline worker's heap, which
 * every full collection marks, is that much smaller.
 */
export class TerminalModel {
  /** Made at the first use (see the class comment). */
  private made: { term: HeadlessTerminal; serializer: InstanceType<typeof SerializeAddon> } | null =
    null;
  private width: number;
  private height: number;
  private disposed = false;
  /** Bytes written, and parsed of them. */
  private written = 0;
  private parsedBytes = 0;
  private cursorHidden = false;
  /** Replays waiting for the bytes written before they were asked for to be parsed. */
  private waiters: { target: number; done: (replay: string) => void }[] = [];

  constructor(
    cols: number,
    rows: number,
    private readonly scrollback: number,
    /** After each write was parsed (the screen changed). */
    private readonly onParsed: () => void,
    /** The terminal's answer to a query the program wrote (device attributes, cursor position). */
    private readonly onAnswer: (data: string) => void,
  ) {
    this.width = cols;
    this.height = rows;
  }

  /** The xterm and its serializer, made now if they were not yet. */
  private xterm(): NonNullable<TerminalModel['made']> {
    return (this.made ??= this.make());
  }

  private make(): NonNullable<TerminalModel['made']> {
    const term = new Terminal({
      cols: this.width,
      rows: this.height,
      scrollback: this.scrollback,
      allowProposedApi: true,
    });
    const serializer = new SerializeAddon();
    term.loadAddon(serializer as unknown as Parameters<HeadlessTerminal['loadAddon']>[0]);
    useUnicode11(term);
    // The serialize addon does not restore cursor visibility (DECTCEM): track it. Returning
    // false lets xterm's own handler run as well.
    term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
      if (params.includes(25)) this.cursorHidden = false;
      return false;
    });
    term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
      if (params.includes(25)) this.cursorHidden = true;
      return false;
    });
    // Device attributes are answered from the output's scan as the bytes arrive
    // (SessionModel); xterm answering them again when it parses them would be a second answer.
    term.parser.registerCsiHandler({ final: 'c' }, () => true);
    term.parser.registerCsiHandler({ prefix: '>', final: 'c' }, () => true);
    term.onData(this.onAnswer);
    return { term, serializer };
  }

  get cols(): number {
    return this.width;
  }

  get rows(): number {
    return this.height;
  }

  /** Whether the xterm was made (see the class comment). */
  get hasTerminal(): boolean {
    return this.made !== null;
  }

  /** Bytes written and not yet parsed. */
  get backlog(): number {
    return this.written - this.parsedBytes;
  }

  write(data: Uint8Array): void {
    if (this.disposed) return;
    this.written += data.length;
    const length = data.length;
    try {
      this.xterm().term.write(data, () => this.afterParse(length));
    } catch {
      // xterm refused the data (its own overflow guard): count it so waiters never hang.
      this.afterParse(length);
    }
  }

  resize(cols: number, rows: number): void {
    if (cols === this.width && rows === this.height) return;
    this.width = cols;
    this.height = rows;
    this.made?.term.resize(cols, rows);
  }

  /** The replay of the screen once every byte written so far is parsed. */
  replayWhenParsed(done: (replay: string) => void): void {
    if (this.parsedBytes >= this.written) done(this.replay());
    else this.waiters.push({ target: this.written, done });
  }

  /** The rendered buffer (scrollback + viewport), for a screen preset's detector. */
  snapshot(): ScreenSnapshot {
    const lines: string[] = [];
    if (this.disposed) return { lines, viewportTop: 0, rows: this.height, cols: this.width };
    const buffer = this.xterm().term.buffer.active;
    for (let y = 0; y < buffer.length; y++)
      lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return { lines, viewportTop: buffer.viewportY, rows: this.height, cols: this.width };
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.waiters) w.done('');
    this.waiters = [];
    this.made?.term.dispose();
    this.made = null;
  }

  /**
   * Runs in xterm's write callback: after this chunk was parsed and before the next one is, so
   * a replay taken here covers exactly the bytes parsed so far.
   */
  private afterParse(length: number): void {
    this.parsedBytes += length;
    while (this.waiters.length > 0 && this.waiters[0]!.target <= this.parsedBytes) {
      this.waiters.shift()!.done(this.replay());
    }
    this.onParsed();
  }

  private replay(): string {
    if (this.disposed) return '';
    const text = this.xterm().serializer.serialize({ scrollback: this.scrollback });
    // Always state cursor visibility: the client's terminal may have it hidden from before.
    return text + (this.cursorHidden ? '\x1b[?25l' : '\x1b[?25h');
  }
}

/**
 * Character widths as the agents and the user's terminal count them (Unicode 11: an emoji such
 * as 🎉 takes two cells; VS Code's terminal uses the same): xterm's default (Unicode 6) gives it
 * one, and a program that places the next character two cells on (Codex's ratatui) left a blank
 * cell in the model after every emoji, which the screen's text then showed as a space.
 */
function useUnicode11(term: HeadlessTerminal): void {
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
}
