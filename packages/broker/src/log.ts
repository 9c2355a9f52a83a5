import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/**
 * JSON logs (pino): to stderr in the foreground, else appended to the log file. PTY content is
 * only ever logged at `trace`.
 */
export function createLogger(options: { level: string; file: string | null }): Logger {
  if (!options.file) {
    return pino(
      { level: options.level, base: { pid: process.pid } },
      pino.destination({ dest: 2, sync: true }),
    );
  }
  mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
  // Synchronous writes: the log is small, and a daemon that exits must not lose its last lines.
  const dest = pino.destination({ dest: options.file, sync: true, mkdir: true });
  return pino({ level: options.level, base: { pid: process.pid } }, dest);
}

/** A logger that writes nothing (in-process tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
