import type { ScreenSnapshot } from '@clippy/turns';
import {
  SCREEN_BACKLOG_HIGH,
  SCREEN_BACKLOG_LOW,
  SCREEN_COMPACT_BYTES,
  SCREEN_FLOOD_BYTES,
  SCREEN_FLOOD_HOLD_MS,
  SCREEN_FLUSH_MS,
  SCREEN_POST_HIGH,
  SCROLLBACK_LINES,
} from '../constants.js';
import { FloodCompactor } from './flood-compactor.js';
import { screenHost, type ScreenClient } from './screen-host.js';
import type { FromScreenWorker } from './screen-protocol.js';

/**
 * A session's screen model: a headless xterm fed with exactly the bytes forwarded to clients,
 * serialized on attach so that a new client sees the current screen (VS Code's pty host does
 * the same). The terminal itself lives in the screen worker thread: parsing never runs on the
 * thread that forwards output. Bytes fed and bytes parsed are counted so that a replay is
 * taken at a known point of the output stream: it covers bytes [0, n) and live output
 * continues at n.
 *
 * During a flood the worker cannot keep up: output is then held here, and the stretches that
 * cannot change the model's final state are dropped (FloodCompactor), so a `cat` of a huge
 * file is not paced by terminal parsing. Only what cannot be dropped paces the PTY.
 */
export class Screen implements ScreenClient {
  private readonly id: number;
  private fed = 0;
  /** Bytes sent to the worker (after dropping) and bytes it has parsed of them. */
  private posted = 0;
  private parsed = 0;
  private readonly held: FloodCompactor;
  private flushTimer: NodeJS.Timeout | null = null;
  /** When the oldest held output arrived (0: nothing held), and `fed` at the last flush tick. */
  private heldSince = 0;
  private fedAtTick = 0;
  private width: number;
  private height: number;
  private bracketed = false;
  private appCursor = false;
  private latest: ScreenSnapshot;
  private nextReq = 1;
  private readonly replays = new Map<number, (replay: string) => void>();
  private parsedHook: (() => void) | null = null;
  /** Receives the terminal model's answers to the program's queries (see Session). */
  onReply: ((data: string) => void) | null = null;
  private dead = false;
  /** True while too many fed bytes wait to be parsed: the session pauses its PTY meanwhile. */
  overloaded = false;

  /** `onOverloadChange` is called whenever `overloaded` flips. */
  constructor(
    cols: number,
    rows: number,
    private readonly onOverloadChange: () => void = () => {},
    private readonly scrollback = SCROLLBACK_LINES,
  ) {
    this.width = cols;
    this.height = rows;
    this.held = new FloodCompactor(this.keepLines());
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

  /** Bytes fed and not yet parsed (held here or queued in the worker). */
  get backlog(): number {
    return this.posted - this.parsed + this.held.size;
  }

  /** Bytes of output the model never had to parse (dropped during floods). */
  get bytesSkipped(): number {
    return this.held.dropped;
  }

  /** Whether the application turned bracketed paste on (`ESC[?2004h`), as parsed so far. */
  get bracketedPaste(): boolean {
    return this.bracketed;
  }

  /** Whether the application turned application cursor keys on (`ESC[?1h`), as parsed so far. */
  get applicationCursor(): boolean {
    return this.appCursor;
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
  write(chunk: Buffer): void {
    if (this.dead) return;
    this.fed += chunk.length;
    // Held briefly rather than posted at once: within the flush interval a flood piles up and
    // its droppable part is dropped before the worker sees it.
    this.held.push(chunk);
    if (this.held.size > SCREEN_COMPACT_BYTES) this.held.compact();
    this.scheduleFlush();
    this.updateOverload();
  }

  private scheduleFlush(): void {
    if (this.flushTimer || this.dead) return;
    if (this.heldSince === 0) this.heldSince = Date.now();
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const arrived = this.fed - this.fedAtTick;
      this.fedAtTick = this.fed;
      // Keep holding while a flood goes on (up to a bound), and while the worker is still busy
      // with earlier output: what waits here may still be dropped, what waits there is parsed.
      const flooding =
        arrived > SCREEN_FLOOD_BYTES && Date.now() - this.heldSince < SCREEN_FLOOD_HOLD_MS;
      if (flooding || this.posted - this.parsed >= SCREEN_POST_HIGH) this.scheduleFlush();
      else this.flushHeld();
    }, SCREEN_FLUSH_MS);
    this.flushTimer.unref();
  }

  private post(chunk: Uint8Array): void {
    this.posted += chunk.length;
    // A copy of just this view, transferred: cloning a Buffer would copy its whole pool slab.
    const data = new Uint8Array(chunk);
    screenHost.send({ op: 'write', id: this.id, data }, [data.buffer]);
  }

  /** Sends everything held to the worker (dropping what may be dropped first). */
  private flushHeld(): void {
    if (this.flushTimer) this.stopFlushing();
    this.heldSince = 0;
    if (this.held.size === 0) return;
    for (const chunk of this.held.drain()) this.post(chunk);
  }

  private updateOverload(): void {
    const backlog = this.backlog;
    if (!this.overloaded && backlog > SCREEN_BACKLOG_HIGH) {
      this.overloaded = true;
      this.onOverloadChange();
    } else if (this.overloaded && backlog < SCREEN_BACKLOG_LOW) {
      this.overloaded = false;
      this.onOverloadChange();
    }
  }

  /**
   * Lines that must follow a stretch of text before it may be dropped: enough to push every row
   * it wrote out of the scrollback, even from the top of the screen.
   */
  private keepLines(): number {
    return this.scrollback + 2 * this.height + 2;
  }

  resize(cols: number, rows: number): void {
    if (this.dead || (cols === this.width && rows === this.height)) return;
    // Held output is dropped by the old size's rules and parsed at the old size, then resized.
    this.flushHeld();
    this.width = cols;
    this.height = rows;
    this.held.keepLines = this.keepLines();
    screenHost.send({ op: 'resize', id: this.id, cols, rows });
  }

  /**
   * Resolves with the replay of the screen as it stands after exactly the bytes fed so far
   * (`bytesFed` at the time of the call), however much is fed meanwhile.
   */
  snapshot(): Promise<string> {
    if (this.dead) return Promise.resolve('');
    this.flushHeld();
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
    if (message.op === 'reply') {
      this.onReply?.(message.data);
      return;
    }
    if (message.op === 'serialized') {
      const resolve = this.replays.get(message.req);
      this.replays.delete(message.req);
      resolve?.(message.replay);
      return;
    }
    this.parsed = message.parsed;
    this.bracketed = message.bracketedPaste;
    this.appCursor = message.applicationCursor;
    this.updateOverload();
    if (message.lines) {
      this.latest = message.lines;
      this.parsedHook?.();
    }
  }

  onWorkerLost(): void {
    this.dead = true;
    this.stopFlushing();
    this.held.drain();
    this.parsed = this.posted;
    this.settleAll();
    if (this.overloaded) {
      this.overloaded = false;
      this.onOverloadChange();
    }
  }

  dispose(): void {
    if (this.dead) return;
    this.dead = true;
    this.stopFlushing();
    this.parsedHook = null;
    this.settleAll();
    screenHost.unregister(this.id);
  }

  private stopFlushing(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
  }

  private settleAll(): void {
    for (const resolve of this.replays.values()) resolve('');
    this.replays.clear();
  }
}
