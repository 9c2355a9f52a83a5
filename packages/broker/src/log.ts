import { closeSync, constants, fstatSync, mkdirSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino, type Logger as PinoLogger } from 'pino';
import { LOG_MAX_BYTES, LOG_PIPE_WAIT_MS, LOG_REOPEN_INTERVAL_MS } from './constants.js';
import { openOwnSync } from './own-files.js';

/** open(2) flags of the log file: appended to, or started afresh. */
const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;
const TRUNCATE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;

export type Logger = PinoLogger;

/**
 * Test seam: a smaller rotation size than LOG_MAX_BYTES (bytes), so that tests see a rotation
 * after a few lines. Not meant for users.
 */
export const LOG_MAX_BYTES_ENV = 'CLIPPYD_LOG_MAX_BYTES';

/** Pause between tries while a full stderr pipe drains. */
const PIPE_RETRY_MS = 5;

/** What `daemon_status` tells about the log. */
export interface LogHealth {
  /** Where lines go now: the log file, stderr, or nowhere (the file could not be opened). */
  destination: 'file' | 'stderr' | 'none';
  /** Lines that could not be written since the daemon started. */
  droppedLines: number;
  /** The last error writing, opening or rotating the log. */
  lastError: string | null;
  lastErrorAt: number | null;
  /** Size at which the file is rotated; null for stderr. */
  maxBytes: number | null;
}

type Target = { file: string; maxBytes: number } | { fd: number };

/**
 * Where pino's lines go: written synchronously (a daemon that exits must not lose its last
 * lines) and never throwing. Logging must not take the daemon down: a line that cannot be
 * written (disk full, a broken pipe) is dropped and counted, a file that cannot be opened is
 * tried again later, and the file is rotated at `maxBytes` to one `.1` file.
 */
export class LogWriter {
  private fd: number | null = null;
  private size = 0;
  /** Only regular files are rotated (not /dev/null, a FIFO, a terminal). */
  private rotatable = false;
  private lastOpenAttempt = 0;
  /** A write failed part-way through a line: the next line starts on a new one. */
  private brokenLine = false;
  private dropped = 0;
  /** Dropped since the last line that was written: announced in the log once it works again. */
  private unannounced = 0;
  private lastError: string | null = null;
  private lastErrorAt: number | null = null;

  constructor(private readonly target: Target) {
    if ('fd' in target) this.fd = target.fd;
    else this.open('a');
  }

  /** pino's stream interface. Never throws. */
  write(line: string): void {
    try {
      this.writeLine(line);
    } catch (err) {
      this.drop(err);
    }
  }

  /** pino's `logger.flush()`: writes are synchronous, nothing is pending. */
  flush(cb?: (err?: Error) => void): void {
    cb?.();
  }

  health(): LogHealth {
    const file = 'file' in this.target;
    return {
      destination: this.fd === null ? 'none' : file ? 'file' : 'stderr',
      droppedLines: this.dropped,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
      maxBytes: file ? this.target.maxBytes : null,
    };
  }

  /** Closes the log file (stderr is not ours to close). */
  dispose(): void {
    if ('file' in this.target && this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed: nothing left to release
      }
    }
    this.fd = null;
  }

  private writeLine(line: string): void {
    const target = this.target;
    const file = 'file' in target;
    if (this.fd === null && file && Date.now() - this.lastOpenAttempt >= LOG_REOPEN_INTERVAL_MS) {
      this.open('a');
    }
    let text = line;
    if (this.unannounced > 0) text = this.dropNotice() + text;
    if (this.brokenLine) text = '\n' + text;
    const data = Buffer.from(text);
    if (file && this.fd !== null && this.rotatable && this.size > 0) {
      if (this.size + data.length > target.maxBytes) this.rotate();
    }
    if (this.fd === null) {
      this.dropped++;
      this.unannounced++;
      return;
    }
    this.writeAll(data);
    this.brokenLine = false;
    this.unannounced = 0;
  }

  private writeAll(data: Buffer): void {
    let offset = 0;
    let waitedMs = 0;
    while (offset < data.length) {
      try {
        const n = writeSync(this.fd!, data, offset);
        offset += n;
        this.size += n;
      } catch (err) {
        // A pipe that is full now may drain soon; only wait while lines are getting through.
        if (errorCode(err) === 'EAGAIN' && this.unannounced === 0 && waitedMs < LOG_PIPE_WAIT_MS) {
          sleepSync(PIPE_RETRY_MS);
          waitedMs += PIPE_RETRY_MS;
          continue;
        }
        if (offset > 0) this.brokenLine = true;
        throw err;
      }
    }
  }

  private drop(err: unknown): void {
    this.dropped++;
    this.unannounced++;
    this.noteError(err);
    // A descriptor that went bad is given up; the file is opened again later.
    const code = errorCode(err);
    if ('file' in this.target && (code === 'EBADF' || code === 'EIO' || code === 'ESTALE')) {
      this.dispose();
      this.lastOpenAttempt = Date.now();
    }
  }

  /** A line of the log's own format saying how many lines are missing before it, and why. */
  private dropNotice(): string {
    return `${JSON.stringify({
      level: 40,
      time: Date.now(),
      pid: process.pid,
      dropped: this.unannounced,
      error: this.lastError,
      msg: 'log lines dropped',
    })}\n`;
  }

  /** Renames the file to `<file>.1` (replacing it) and starts a new one. */
  private rotate(): void {
    const target = this.target as { file: string; maxBytes: number };
    this.dispose();
    try {
      renameSync(target.file, `${target.file}.1`);
      this.open('a');
    } catch (err) {
      this.noteError(err);
      // Cannot keep an old file: start this one afresh rather than let it grow without bound.
      this.open('w');
    }
  }

  private open(flags: 'a' | 'w'): void {
    const target = this.target as { file: string; maxBytes: number };
    this.lastOpenAttempt = Date.now();
    try {
      mkdirSync(dirname(target.file), { recursive: true, mode: 0o700 });
      // 0600: at `trace` the log holds terminal content. Never through a link, never another's.
      const fd = openOwnSync(target.file, flags === 'a' ? APPEND : TRUNCATE, 0o600);
      try {
        const st = fstatSync(fd);
        this.rotatable = st.isFile();
        this.size = this.rotatable ? st.size : 0;
      } catch (err) {
        closeSync(fd);
        throw err;
      }
      this.fd = fd;
      this.brokenLine = false;
    } catch (err) {
      this.fd = null;
      this.noteError(err);
    }
  }

  private noteError(err: unknown): void {
    this.lastError = err instanceof Error ? err.message : String(err);
    this.lastErrorAt = Date.now();
  }
}

function errorCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The rotation size: LOG_MAX_BYTES, or the test seam's positive integer. */
export function logMaxBytes(env: Record<string, string | undefined> = process.env): number {
  const raw = env[LOG_MAX_BYTES_ENV];
  const n = raw ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : LOG_MAX_BYTES;
}

const writers = new WeakMap<Logger, LogWriter>();

/**
 * JSON logs (pino): to stderr in the foreground, else appended to the log file. PTY content is
 * only ever logged at `trace`. The daemon starts even when the file cannot be opened.
 */
export function createLogger(options: {
  level: string;
  file: string | null;
  maxBytes?: number;
}): Logger {
  const writer = options.file
    ? new LogWriter({ file: options.file, maxBytes: options.maxBytes ?? logMaxBytes() })
    : new LogWriter({ fd: 2 });
  const logger = pino({ level: options.level, base: { pid: process.pid } }, writer);
  writers.set(logger, writer);
  return logger;
}

/** How a logger made by `createLogger` is faring; null for any other logger (tests' own). */
export function logHealth(logger: Logger): LogHealth | null {
  return writers.get(logger)?.health() ?? null;
}

/** Closes the log file behind a logger made by `createLogger` (later lines are dropped). */
export function closeLogger(logger: Logger): void {
  writers.get(logger)?.dispose();
}

/** A logger that writes nothing (in-process tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
