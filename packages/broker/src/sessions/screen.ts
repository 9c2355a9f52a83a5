import type { ScreenSnapshot } from '@clippy/turns';
import { SCREEN_BACKLOG_HIGH, SCREEN_BACKLOG_LOW, SCROLLBACK_LINES } from '../constants.js';
import { screenHost, type ScreenClient } from './screen-host.js';
import type { FromScreenWorker } from './screen-protocol.js';

/**
 * A session's screen model: a headless xterm fed with exactly the bytes forwarded to clients,
 * serialized on attach so that a new client sees the current screen (VS Code's pty host does
 * the same). The terminal itself lives in the screen worker thread: parsing never runs on the
 * thread that forwards output. Bytes fed and bytes parsed are counted so that a replay is
 * taken at a known point of the output stream: it covers bytes [0, n) and live output
 * continues at n.
 */
export class Screen implements ScreenClient {
  private readonly id: number;
  private fed = 0;
  private parsed = 0;
  private width: number;
  private height: number;
  private bracketed = false;
  private latest: ScreenSnapshot;
  private nextReq = 1;
  private readonly replays = new Map<number, (replay: string) => void>();
  private parsedHook: (() => void) | null = null;
  private dead = false;
  /** True while too many fed bytes wait to be parsed: the session pauses its PTY meanwhile. */
  overloaded = false;

  /** `onOverloadChange` is called whenever `overloaded` flips. */
  constructor(
    cols: number,
    rows: number,
    private readonly onOverloadChange: () => void = () => {},
    scrollback = SCROLLBACK_LINES,
  ) {
    this.width = cols;
    this.height = rows;
    this.latest = { lines: [], viewportTop: 0, rows, cols };
    this.id = screenHost.register(this);
    screenHost.send({ op: 'create', id: this.id, cols, rows, scrollback });
  }

  get cols(): number {
    return this.width;
  }

  get rows(): number {
    return this.height;
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
    return this.bracketed;
  }

  /**
   * Called whenever a fresh rendering (`turnSnapshot`) arrived. Setting it asks the worker to
   * send renderings at all: only screen-preset sessions pay for them.
   */
  get onParsed(): (() => void) | null {
    return this.parsedHook;
  }

  set onParsed(hook: (() => void) | null) {
    this.parsedHook = hook;
    if (!this.dead) screenHost.send({ op: 'watch', id: this.id, on: hook !== null });
  }

  /** Feeds output bytes (after they were forwarded to clients: the screen is never on the hot path). */
  write(chunk: Uint8Array): void {
    if (this.dead) return;
    this.fed += chunk.length;
    // A copy of just this view, transferred: cloning a Buffer would copy its whole pool slab.
    const data = new Uint8Array(chunk);
    screenHost.send({ op: 'write', id: this.id, data }, [data.buffer]);
    if (!this.overloaded && this.fed - this.parsed > SCREEN_BACKLOG_HIGH) {
      this.overloaded = true;
      this.onOverloadChange();
    }
  }

  resize(cols: number, rows: number): void {
    if (this.dead || (cols === this.width && rows === this.height)) return;
    this.width = cols;
    this.height = rows;
    screenHost.send({ op: 'resize', id: this.id, cols, rows });
  }

  /**
   * Resolves with the replay of the screen as it stands after exactly the bytes fed so far
   * (`bytesFed` at the time of the call), however much is fed meanwhile.
   */
  snapshot(): Promise<string> {
    if (this.dead) return Promise.resolve('');
    const req = this.nextReq++;
    return new Promise((resolve) => {
      this.replays.set(req, resolve);
      screenHost.send({ op: 'serialize', id: this.id, req });
    });
  }

  /**
   * The latest rendering of the buffer (scrollback + viewport) as text, for the turn detector.
   * Kept fresh by the worker while `onParsed` is set; empty before the first one arrives.
   */
  turnSnapshot(): ScreenSnapshot {
    return this.latest;
  }

  /** Rows of the visible screen from the latest rendering (needs `onParsed` set). */
  visibleLines(): string[] {
    const { lines, viewportTop, rows } = this.latest;
    return lines.slice(viewportTop, viewportTop + rows);
  }

  onWorkerMessage(message: FromScreenWorker): void {
    if (message.op === 'serialized') {
      const resolve = this.replays.get(message.req);
      this.replays.delete(message.req);
      resolve?.(message.replay);
      return;
    }
    this.parsed = message.parsed;
    this.bracketed = message.bracketedPaste;
    if (this.overloaded && this.fed - this.parsed < SCREEN_BACKLOG_LOW) {
      this.overloaded = false;
      this.onOverloadChange();
    }
    if (message.lines) {
      this.latest = message.lines;
      this.parsedHook?.();
    }
  }

  onWorkerLost(): void {
    this.dead = true;
    this.parsed = this.fed;
    this.settleAll();
    if (this.overloaded) {
      this.overloaded = false;
      this.onOverloadChange();
    }
  }

  dispose(): void {
    if (this.dead) return;
    this.dead = true;
    this.parsedHook = null;
    this.settleAll();
    screenHost.unregister(this.id);
  }

  private settleAll(): void {
    for (const resolve of this.replays.values()) resolve('');
    this.replays.clear();
  }
}
