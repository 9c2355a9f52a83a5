import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { ModeTracker, blindRestoreBytes, terminalRestoreBytes } from '@clippy/protocol';

/** Longest the attach waits for `stty` to turn output processing off (it takes milliseconds). */
const STTY_TIMEOUT_MS = 2_000;

/** The file descriptor behind a stream, when it has one. */
function fdOf(stream: NodeJS.ReadStream | NodeJS.WriteStream): number | undefined {
  const fd = (stream as unknown as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : undefined;
}

/** Whether two descriptors are the same terminal device (stdin and stdout of one terminal). */
function sameTerminal(a: number, b: number): boolean {
  try {
    return fs.fstatSync(a).rdev === fs.fstatSync(b).rdev;
  } catch {
    return false;
  }
}

/** The terminal's size as the session gets it: the classic 80x24 when stdout is no terminal. */
export function terminalSize(stdout: NodeJS.WriteStream): { cols: number; rows: number } {
  const cols = stdout.isTTY ? stdout.columns : 0;
  const rows = stdout.isTTY ? stdout.rows : 0;
  return { cols: cols > 0 ? cols : 80, rows: rows > 0 ? rows : 24 };
}

/**
 * The terminal the daemon may read and write itself (direct attach): stdin and stdout are one
 * terminal, and its path is known. Null otherwise (pipes, a file, two different terminals).
 */
export function directTerminalPath(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
): string | null {
  const inFd = fdOf(stdin);
  const outFd = fdOf(stdout);
  if (!stdin.isTTY || !stdout.isTTY || inFd === undefined || outFd === undefined) return null;
  if (!sameTerminal(inFd, outFd)) return null;
  try {
    // Linux names the device behind a descriptor here; the daemon checks the same place.
    const p = fs.realpathSync(`/proc/self/fd/${inFd}`);
    return p.startsWith('/dev/') ? p : null;
  } catch {
    return null;
  }
}

/**
 * Owns the user's terminal while attached: raw mode in, and a restore that runs exactly once
 * on every way out (detach, exit, daemon death, signals, exceptions), synchronously so it
 * happens even right before process.exit().
 */
export class TerminalGuard {
  readonly modes = new ModeTracker();
  /**
   * The session's output goes to the terminal without passing through here (direct attach):
   * `modes` knows nothing, so a restore not told otherwise turns every mode off (see restore).
   */
  outputBypassed = false;
  private raw = false;
  private entered = false;
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
    return terminalSize(this.stdout);
  }

  /** Idempotent. */
  enterRaw(): void {
    if (this.entered) return;
    this.entered = true;
    process.on('uncaughtException', this.onFatal);
    process.on('unhandledRejection', this.onFatal);
    if (this.stdin.isTTY && !this.raw) {
      this.stdin.setRawMode(true);
      this.raw = true;
      this.outputProcessingOff();
    }
  }

  /**
   * Turns the terminal's output processing off (`stty -opost`), as tmux and ssh do; Node's raw
   * mode leaves it on. The session's PTY already turned the program's line feeds into CR LF
   * once: the terminal must get its bytes as they are (a program's bare line feed stays one),
   * and the kernel then no longer handles each line of output on its own (measured: the attach
   * client's system time for 64 MB of `cat` fell from 0.46 s to 0.10 s). Only when stdin and
   * stdout are the same terminal: setRawMode(false) then puts back the settings libuv saved
   * before raw mode, output processing included. Without `stty` the attach works as before.
   */
  private outputProcessingOff(): void {
    const inFd = fdOf(this.stdin);
    const outFd = fdOf(this.stdout);
    if (inFd === undefined || outFd === undefined || !this.stdout.isTTY) return;
    if (!sameTerminal(inFd, outFd)) return;
    spawnSync('stty', ['-opost'], {
      stdio: [outFd, 'ignore', 'ignore'],
      timeout: STTY_TIMEOUT_MS,
    });
  }

  /**
   * Undo raw mode and whatever modes the session's output left on. Idempotent. Unless the
   * session itself ended (`leaveScreen: false`: its last output is where a program run
   * directly would leave it), the cursor then goes to a fresh line below the session's screen
   * (see terminalRestoreBytes). `modesUnknown` (default: `outputBypassed`): the session's
   * output did not pass through here (direct attach) and the daemon could not give the terminal
   * back itself (it died, or this process fails): every mode a session may turn on is turned off.
   */
  restore(opts: { leaveScreen?: boolean; modesUnknown?: boolean } = {}): void {
    if (this.restored) return;
    this.restored = true;
    process.off('uncaughtException', this.onFatal);
    process.off('unhandledRejection', this.onFatal);
    if (this.stdout.isTTY) {
      const where = { rows: this.stdout.rows, moveBelow: this.raw && opts.leaveScreen !== false };
      const bytes =
        (opts.modesUnknown ?? this.outputBypassed)
          ? blindRestoreBytes(where)
          : terminalRestoreBytes(this.modes, where);
      try {
        fs.writeSync((this.stdout as unknown as { fd: number }).fd, bytes);
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

  /** Gives the terminal back (as restore(), leaving the cursor below the session's screen). */
  dispose(): void {
    this.restore();
  }
}
