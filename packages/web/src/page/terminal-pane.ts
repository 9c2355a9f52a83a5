import { Terminal } from '@xterm/xterm';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { ACK_INTERVAL_BYTES } from '@clippy/protocol';
import { el } from './format.js';
import type { Rpc } from './rpc.js';

/** Smallest size "Fit to this window" asks for: below it no prompt is readable. */
const FIT_MIN_COLS = 20;
const FIT_MIN_ROWS = 5;

/**
 * On a touch screen, the smallest scale a terminal opens at: below it (a 100-column agent on a
 * 390 px phone is shown at 0.45, 5 px text) it opens at 100 % and is panned with a finger.
 */
const TOUCH_MIN_SCALE = 0.6;

/** How the terminal is shown: scaled down to fit the pane, or at 100 % and panned. */
export type Zoom = 'fit' | 'actual';

/**
 * A real terminal on an attached session, shown at the session's real size (as tmux shows a
 * larger window in a smaller client): the page is a viewer (`ignore_size`), so opening it in a
 * narrow window never resizes the session. The terminal is scaled to fit the pane, or shown at
 * 100 % and panned; `fitSession` asks the daemon to fit the session to the pane instead (the
 * size returns to the other clients' when the page leaves). The broker's replayed screen, then
 * live output (acked as xterm.js consumes it, so a slow page holds the session back instead of
 * losing bytes); keys typed go to the PTY as `input`.
 */
export class TerminalPane {
  readonly term = new Terminal({
    convertEol: false,
    cursorBlink: true,
    fontSize: 13,
    scrollback: 5000,
    theme: { background: '#101418' },
    // For the Unicode 11 widths (below): `unicode` is a proposed API in xterm.js 6.
    allowProposedApi: true,
  });
  /** Scrolls (pans) when the terminal is larger than the pane. */
  private readonly viewport = el('div', 'term-viewport');
  /** Takes the scaled terminal's size, so the viewport scrolls over exactly that. */
  private readonly sizer = el('div', 'term-sizer');
  private readonly stage = el('div', 'term-stage');
  private unacked = 0;
  private readonly cleanups: (() => void)[] = [];
  private disposed = false;
  zoom: Zoom = 'fit';
  /** The zoom is the user's once they chose one, or once it was chosen for the first screen. */
  private zoomChosen = false;
  /** The session's size is known (attached): the first zoom is chosen for it, not a default. */
  private sized = false;
  /** Told when the zoom changes by itself (the first layout on a touch screen). */
  onZoom: (zoom: Zoom) => void = () => {};

  constructor(
    private readonly rpc: Rpc,
    private readonly session: string,
    private readonly container: HTMLElement,
    onExit: (text: string) => void,
  ) {
    this.sizer.append(this.stage);
    this.viewport.append(this.sizer);
    container.append(this.viewport);
    // Widths as the agents and the daemon's screen model count them (an emoji two cells): with
    // xterm's default a TUI's line after an emoji showed a gap.
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.open(this.stage);
    const encoder = new TextEncoder();
    const typed = this.term.onData((data) => this.input(encoder.encode(data)));
    const binary = this.term.onBinary((data) =>
      this.input(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)),
    );
    const rendered = this.term.onResize(() => this.layout());
    this.cleanups.push(
      () => typed.dispose(),
      () => binary.dispose(),
      () => rendered.dispose(),
      this.rpc.on('output', (push) => {
        if (push.session !== session) return;
        const data = push.data as Uint8Array;
        this.term.write(data, () => this.consumed(data.length));
      }),
      // The session's size changed (its driving client, a fit): shown at the new size.
      this.rpc.on('session_resized', (push) => {
        if (push.session === session) this.setSize(push.cols as number, push.rows as number);
      }),
      this.rpc.on('exit', (push) => {
        if (push.session !== session) return;
        const how = push.signal
          ? `signal ${String(push.signal)}`
          : `code ${String(push.exit_code)}`;
        this.term.write(`\r\n\x1b[2m[session exited, ${how}]\x1b[0m\r\n`);
        onExit(how);
      }),
      this.rpc.on('detached', (push) => {
        if (push.session === session)
          this.term.write(`\r\n\x1b[2m[detached: ${String(push.message)}]\x1b[0m\r\n`);
      }),
    );
    const observer = new ResizeObserver(() => this.layout());
    observer.observe(this.viewport);
    this.cleanups.push(() => observer.disconnect());
  }

  /**
   * Attaches as a viewer: the session keeps its size; the replayed screen is written at that
   * size before any live output.
   */
  async attach(): Promise<{ exited: boolean }> {
    const wanted = this.paneSize();
    const reply = await this.rpc.request<{
      replay: Uint8Array;
      exited: boolean;
      cols: number;
      rows: number;
    }>('attach', {
      session: this.session,
      mode: 'interactive',
      ignore_size: true,
      ...wanted,
    });
    if (this.disposed) return { exited: reply.exited };
    this.setSize(reply.cols, reply.rows);
    this.term.write(reply.replay);
    return { exited: reply.exited };
  }

  /** Focuses the terminal (keys go to the session); not done on open: a phone's keyboard would cover the page. */
  focus(): void {
    this.term.focus();
  }

  /** Shows the terminal at the session's size. */
  private setSize(cols: number, rows: number): void {
    if (this.disposed) return;
    if (cols !== this.term.cols || rows !== this.term.rows) this.term.resize(cols, rows);
    this.sized = true;
    this.container.dataset.size = `${cols}x${rows}`;
    this.layout();
  }

  setZoom(zoom: Zoom): void {
    this.zoom = zoom;
    this.zoomChosen = true;
    this.layout();
  }

  /** Scales the terminal to the pane's width (zoom `fit`, never above 100 %), or shows it at 100 %. */
  private layout(): void {
    if (this.disposed) return;
    const screen = this.stage.querySelector<HTMLElement>('.xterm-screen');
    if (!screen) return;
    const width = screen.offsetWidth;
    const height = screen.offsetHeight;
    if (!width || !height) return;
    // Scaled to the pane's width (a taller screen scrolls): the text stays as large as it can.
    const fitScale = Math.min(1, this.viewport.clientWidth / width);
    // A touch screen opens it readable: at 100 %, panned, where fitting would make it tiny.
    if (!this.zoomChosen && this.sized && this.viewport.clientWidth > 0) {
      this.zoomChosen = true;
      if (fitScale < TOUCH_MIN_SCALE && matchMedia('(pointer: coarse)').matches) {
        this.zoom = 'actual';
        this.onZoom(this.zoom);
      }
    }
    const scale = this.zoom === 'fit' ? fitScale : 1;
    this.stage.style.transform = scale === 1 ? '' : `scale(${scale})`;
    this.sizer.style.width = `${Math.floor(width * scale)}px`;
    this.sizer.style.height = `${Math.floor(height * scale)}px`;
    this.container.dataset.scale = scale.toFixed(2);
  }

  /** The terminal size that fills the pane at 100 %, from the cell size xterm.js renders. */
  paneSize(): { cols: number; rows: number } {
    const screen = this.stage.querySelector<HTMLElement>('.xterm-screen');
    const cellWidth = screen && this.term.cols ? screen.offsetWidth / this.term.cols : 0;
    const cellHeight = screen && this.term.rows ? screen.offsetHeight / this.term.rows : 0;
    if (!cellWidth || !cellHeight) return { cols: this.term.cols, rows: this.term.rows };
    return {
      cols: Math.max(FIT_MIN_COLS, Math.floor(this.viewport.clientWidth / cellWidth)),
      rows: Math.max(FIT_MIN_ROWS, Math.floor(this.viewport.clientHeight / cellHeight)),
    };
  }

  /**
   * "Fit this session to this window": the daemon takes the pane's size (`resize` with `fit`);
   * it returns to the other clients' size when this page leaves the session.
   */
  async fitSession(): Promise<{ cols: number; rows: number }> {
    const size = this.paneSize();
    await this.rpc.request('resize', { session: this.session, ...size, fit: true });
    return size;
  }

  /** Keys (or a paste) to the PTY; a refusal (session gone, paste too large) is shown in place. */
  private input(data: Uint8Array): void {
    this.rpc.request('input', { session: this.session, data }).catch((err: Error) => {
      if (!this.disposed) this.term.write(`\r\n\x1b[2m[not sent: ${err.message}]\x1b[0m\r\n`);
    });
  }

  private consumed(bytes: number): void {
    if (this.disposed) return;
    this.unacked += bytes;
    if (this.unacked >= ACK_INTERVAL_BYTES) {
      this.rpc.notify('ack', { session: this.session, bytes: this.unacked });
      this.unacked = 0;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const cleanup of this.cleanups) cleanup();
    this.rpc.request('detach', { session: this.session }).catch(() => {});
    this.term.dispose();
    this.viewport.remove();
  }
}
