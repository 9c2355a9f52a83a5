import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { ACK_INTERVAL_BYTES } from '@clippy/protocol';
import type { Rpc } from './rpc.js';

/** Resizes while the window is dragged coalesce into one `resize` request. */
const RESIZE_DEBOUNCE_MS = 100;

/**
 * A real terminal on an attached session: the broker's replayed screen, then live output
 * (acked as xterm.js consumes it, so a slow page holds the session back instead of losing
 * bytes), keys typed go to the PTY as `input`, and its size follows the pane (`resize`).
 */
export class TerminalPane {
  readonly term = new Terminal({
    convertEol: false,
    cursorBlink: true,
    fontSize: 13,
    scrollback: 5000,
    theme: { background: '#101418' },
  });
  private readonly fit = new FitAddon();
  private unacked = 0;
  private readonly cleanups: (() => void)[] = [];
  private resizeTimer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;

  constructor(
    private readonly rpc: Rpc,
    private readonly session: string,
    private readonly container: HTMLElement,
    onExit: (text: string) => void,
  ) {
    this.term.loadAddon(this.fit);
    this.term.open(container);
    this.fit.fit();
    this.showSize();
    const encoder = new TextEncoder();
    const typed = this.term.onData((data) => this.input(encoder.encode(data)));
    const binary = this.term.onBinary((data) =>
      this.input(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)),
    );
    this.cleanups.push(
      () => typed.dispose(),
      () => binary.dispose(),
      this.rpc.on('output', (push) => {
        if (push.session !== session) return;
        const data = push.data as Uint8Array;
        this.term.write(data, () => this.consumed(data.length));
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
    const observer = new ResizeObserver(() => this.scheduleResize());
    observer.observe(container);
    this.cleanups.push(() => observer.disconnect());
  }

  /** Attaches: the replayed screen is written before any live output. */
  async attach(): Promise<{ exited: boolean }> {
    const reply = await this.rpc.request<{ replay: Uint8Array; exited: boolean }>('attach', {
      session: this.session,
      mode: 'interactive',
      cols: this.term.cols,
      rows: this.term.rows,
    });
    if (this.disposed) return { exited: reply.exited };
    this.term.write(reply.replay);
    this.term.focus();
    return { exited: reply.exited };
  }

  /** Keys (or a paste) to the PTY; a refusal (session gone, paste too large) is shown in place. */
  private input(data: Uint8Array): void {
    this.rpc.request('input', { session: this.session, data }).catch((err: Error) => {
      if (!this.disposed) this.term.write(`\r\n\x1b[2m[not sent: ${err.message}]\x1b[0m\r\n`);
    });
  }

  /** The size the session was given, on the container (`data-size="COLSxROWS"`). */
  private showSize(): void {
    if (!this.disposed) this.container.dataset.size = `${this.term.cols}x${this.term.rows}`;
  }

  private consumed(bytes: number): void {
    if (this.disposed) return;
    this.unacked += bytes;
    if (this.unacked >= ACK_INTERVAL_BYTES) {
      this.rpc.notify('ack', { session: this.session, bytes: this.unacked });
      this.unacked = 0;
    }
  }

  private scheduleResize(): void {
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    this.resizeTimer = setTimeout(() => {
      if (this.disposed) return;
      const before = `${this.term.cols}x${this.term.rows}`;
      this.fit.fit();
      if (`${this.term.cols}x${this.term.rows}` === before) return;
      const { cols, rows } = this.term;
      this.rpc
        .request('resize', { session: this.session, cols, rows })
        .then(() => this.showSize())
        .catch(() => {});
    }, RESIZE_DEBOUNCE_MS);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    for (const cleanup of this.cleanups) cleanup();
    this.rpc.request('detach', { session: this.session }).catch(() => {});
    this.term.dispose();
  }
}
