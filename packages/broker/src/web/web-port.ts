import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** The longest port file read: `{"port": 65535, "running": false}` and some room. */
const PORT_FILE_MAX_BYTES = 256;

/** What is remembered of the web view: its port, and whether it ran (or was stopped). */
export interface RememberedWeb {
  port: number;
  running: boolean;
}

/**
 * The web view's port, remembered in the state directory (`web-port`, 0600) with whether it
 * runs: with no port in config.json, `clippy web` takes the same port again after `clippy web
 * --stop`, and a daemon restarted (or started after a `kill -9`) starts the web view again on it
 * when it ran — so an open tab or an installed page comes back by itself. Opened without
 * following a link, as every file there: a link planted in its place is not written through.
 */
export class WebPortFile {
  constructor(readonly path: string) {}

  /** What is remembered, or null (no file, a link, or anything that is not ours). */
  read(): RememberedWeb | null {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return null;
    }
    try {
      const buf = Buffer.alloc(PORT_FILE_MAX_BYTES);
      const n = readSync(fd, buf, 0, buf.length, 0);
      const v = JSON.parse(buf.subarray(0, n).toString('utf8')) as Partial<RememberedWeb>;
      const port = v.port;
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
        return null;
      return { port, running: v.running === true };
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Writes it whole (a new file renamed over the old: a link there is replaced, not followed);
   * a failure is returned, not thrown: the web view runs without the memory.
   */
  write(value: RememberedWeb): Error | null {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      // One left by a write that died half-way (the PID came round again).
      rmSync(temporary, { force: true });
      const fd = openSync(
        temporary,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        writeSync(fd, `${JSON.stringify(value)}\n`);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, this.path);
      return null;
    } catch (err) {
      return err as Error;
    }
  }
}
