import fs from 'node:fs';
import { ModeTracker } from './modes.js';

/**
 * Owns the user's terminal while attached: raw mode in, and a restore that runs exactly once
 * on every way out (detach, exit, daemon death, signals, exceptions), synchronously so it
 * happens even right before process.exit().
 */
export class TerminalGuard {
  readonly modes = new ModeTracker();
  private raw = false;
  private restored = false;
  private readonly onFatal = (err: unknown) => {
    this.restore();
    process.stderr.write(
      `clippy: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  };

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    private readonly stdout: NodeJS.WriteStream,
  ) {}

  get isTTY(): boolean {
    return Boolean(this.stdin.isTTY);
  }

  /** Terminal size to give the session (the classic default when stdout is no terminal). */
  size(): { cols: number; rows: number } {
    const cols = this.stdout.isTTY ? this.stdout.columns : 0;
    const rows = this.stdout.isTTY ? this.stdout.rows : 0;
    return { cols: cols > 0 ? cols : 80, rows: rows > 0 ? rows : 24 };
  }

  enterRaw(): void {
    process.on('uncaughtException', this.onFatal);
    process.on('unhandledRejection', this.onFatal);
    if (this.stdin.isTTY && !this.raw) {
      this.stdin.setRawMode(true);
      this.raw = true;
    }
  }

  /**
   * Undo raw mode and whatever modes the session's output left on. Idempotent. Unless the
   * session itself ended (`leaveScreen: false`: its last output is where a program run
   * directly would leave it), the cursor then goes to a fresh line below the session's screen,
   * as tmux's detach does: what comes next (a notice, the shell's prompt) lands under the
   * app's footer instead of over its input line. A main-screen TUI leaves its cursor anywhere
   * and the client keeps no screen model, so "below" is the bottom row, then one line more.
   */
  restore(opts: { leaveScreen?: boolean } = {}): void {
    if (this.restored) return;
    this.restored = true;
    process.off('uncaughtException', this.onFatal);
    process.off('unhandledRejection', this.onFatal);
    if (this.stdout.isTTY) {
      const rows = this.stdout.rows > 0 ? this.stdout.rows : 1;
      const below = this.raw && opts.leaveScreen !== false ? `\x1b[${rows};1H\r\n` : '';
      try {
        fs.writeSync(
          (this.stdout as unknown as { fd: number }).fd,
          this.modes.restoreSequence() + below,
        );
      } catch {
        // The terminal is gone (SIGHUP): nothing left to restore.
      }
    }
    if (this.raw) {
      try {
        this.stdin.setRawMode(false);
      } catch {
        // Same: a closed terminal cannot change mode.
      }
      this.raw = false;
    }
  }
}
