import * as vscode from 'vscode';
import type { ClippyClient } from '@clippy/client';
import { ACK_INTERVAL_BYTES, type Push } from '@clippy/protocol';
import type { DaemonLink } from './daemon-link.js';
import { messageOf } from './errors.js';
import { DETACH_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './limits.js';

/** Clears the terminal before the replay paints the session's screen on it (as `clippy attach`). */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

/**
 * A VS Code terminal showing a session, backed by the attach protocol on a connection of its
 * own: the replayed screen, then live output (acked every ACK_INTERVAL_BYTES so the daemon
 * keeps sending), keystrokes as `input` notifications, size changes as `resize`. Closing the
 * terminal detaches; the session keeps running. When the session ends (or the daemon goes)
 * the terminal says so and closes on the next key, so its last screen can still be read.
 */
export class SessionTerminal implements vscode.Pseudoterminal {
  private readonly wrote = new vscode.EventEmitter<string>();
  private readonly closing = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.wrote.event;
  readonly onDidClose = this.closing.event;
  private client: ClippyClient | null = null;
  private off: (() => void) | null = null;
  /** The session's ID once attached: input, resize and acks name it. */
  private sessionId: string | null = null;
  private names = new Set<string>();
  /** Pushes that came before the attach's answer: painted after the replay, in order. */
  private early: Push[] | null = [];
  /** Keys typed before the attach was answered. */
  private typedEarly: string[] = [];
  private size: vscode.TerminalDimensions | undefined;
  private readonly decoder = new TextDecoder('utf-8');
  private unacked = 0;
  /** The session ended or could not be shown: the next key closes the terminal. */
  private ended = false;
  /** VS Code closed the terminal (or the extension stops). */
  private closed = false;

  constructor(
    private readonly link: DaemonLink,
    /** The session's ID (or name). */
    readonly session: string,
    private readonly name: string,
    private readonly onError: (message: string) => void,
  ) {}

  open(initialDimensions: vscode.TerminalDimensions | undefined): void {
    this.size = initialDimensions;
    void this.attach();
  }

  private async attach(): Promise<void> {
    let c: ClippyClient;
    try {
      c = await this.link.open();
    } catch (err) {
      this.fail(messageOf(err));
      return;
    }
    if (this.closed) {
      c.dispose();
      return;
    }
    this.client = c;
    this.off = c.onAny((p) => {
      if (this.early) this.early.push(p);
      else this.onPush(p);
    });
    void c.closed.then((info) => {
      if (info.reason !== 'client') this.end(info.message);
    });
    try {
      const r = await c.request(
        'attach',
        {
          session: this.session,
          mode: 'interactive',
          ...(this.size ? { cols: this.size.columns, rows: this.size.rows } : {}),
          pid: process.pid,
        },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      );
      this.sessionId = r.session;
      this.names = new Set([this.session, r.session, r.name]);
      this.wrote.fire(CLEAR_SCREEN);
      this.emit(r.replay);
      const early = this.early ?? [];
      this.early = null;
      for (const p of early) this.onPush(p);
      if (r.exited) {
        this.end(exitText(this.name, r.exit_code, r.exit_signal));
        return;
      }
      for (const keys of this.typedEarly.splice(0)) this.handleInput(keys);
    } catch (err) {
      if (!this.ended) this.fail(messageOf(err));
    }
  }

  private onPush(p: Push): void {
    if (this.ended) return;
    switch (p.type) {
      case 'output':
        if (!this.names.has(p.session)) return;
        this.emit(p.data);
        this.unacked += p.data.length;
        if (this.unacked >= ACK_INTERVAL_BYTES && this.sessionId) {
          this.client?.notify('ack', { session: this.sessionId, bytes: this.unacked });
          this.unacked = 0;
        }
        return;
      case 'exit':
        if (this.names.has(p.session)) this.end(exitText(this.name, p.exit_code, p.signal));
        return;
      case 'detached':
        if (this.names.has(p.session)) this.end(`detached from ${this.name}: ${p.message}`);
        return;
      default:
        return;
    }
  }

  /** Bytes from the session, decoded across frame boundaries (a character may be split). */
  private emit(data: Uint8Array): void {
    const text = this.decoder.decode(data, { stream: true });
    if (text) this.wrote.fire(text);
  }

  handleInput(data: string): void {
    if (this.ended) {
      this.closing.fire();
      return;
    }
    if (!this.sessionId || !this.client) {
      this.typedEarly.push(data);
      return;
    }
    // A notification, as `clippy attach` sends keys: no answer per keystroke.
    this.client.notify('input', { session: this.sessionId, data: Buffer.from(data, 'utf8') });
  }

  setDimensions(dimensions: vscode.TerminalDimensions): void {
    this.size = dimensions;
    if (this.ended || !this.sessionId || !this.client) return;
    this.client
      .request(
        'resize',
        { session: this.sessionId, cols: dimensions.columns, rows: dimensions.rows },
        { timeoutMs: REQUEST_TIMEOUT_MS },
      )
      .catch(() => {});
  }

  /** The user closed the terminal: detach (the session keeps running) and let go. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ended = true;
    void this.release(true);
  }

  /** The session can no longer be shown: say why in the terminal, keep its screen. */
  private end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    this.wrote.fire(`\r\n\x1b[0m[clippy: ${why}; press any key to close this terminal]\r\n`);
    void this.release(false);
  }

  /** Attaching failed: the reason in the terminal and as an error message. */
  private fail(why: string): void {
    this.onError(`cannot open ${this.name}: ${why}`);
    this.end(why);
  }

  private async release(detach: boolean): Promise<void> {
    const c = this.client;
    this.client = null;
    this.off?.();
    this.off = null;
    if (!c) return;
    if (detach && this.sessionId && c.isOpen) {
      await c
        .request('detach', { session: this.sessionId }, { timeoutMs: DETACH_TIMEOUT_MS })
        .catch(() => {});
    }
    await c.close();
  }

  dispose(): void {
    this.close();
    this.wrote.dispose();
    this.closing.dispose();
  }
}

function exitText(name: string, code: number | null | undefined, signal?: string | null): string {
  return `${name} exited with ${signal ? `signal ${signal}` : `code ${code ?? '?'}`}`;
}
