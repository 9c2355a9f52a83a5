import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import type { Rpc } from './rpc.js';

/** Output bytes taken by the terminal between acks (ACK_INTERVAL_BYTES of @clippy/protocol). */
const ACK_INTERVAL_BYTES = 64 * 1024;
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
    container: HTMLElement,
    onExit: (text: string) => void,
  ) {
    this.term.loadAddon(this.fit);
    this.term.open(container);
    this.fit.fit();
    const encoder = new TextEncoder();
    const typed = this.term.onData((data) => {
      this.rpc.request('input', { session, data: encoder.encode(data) }).catch(() => {});
    });
    const binary = this.term.onBinary((data) => {
      const bytes = Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff);
      this.rpc.request('input', { session, data: bytes }).catch(() => {});
    });
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
    this.term.write(reply.replay);
    this.term.focus();
    return { exited: reply.exited };
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
      this.rpc
        .request('resize', { session: this.session, cols: this.term.cols, rows: this.term.rows })
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
