import { closeSync, constants, ftruncateSync, mkdirSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_HISTORY_LOCK_WAIT_SECONDS } from '@clippy/protocol';
import { tryLock } from 'fs-native-extensions';
import { openOwnSync, readOwnFileSync } from '../own-files.js';

/**
 * How long a daemon waits for the history lock before it runs without history (config.json
 * `historyLockWaitSeconds` sets another): long enough for a predecessor killed with SIGKILL to
 * finish dying (its descriptors close last), short enough that a second daemon on the same
 * state directory does not keep its clients waiting long.
 */
export const HISTORY_LOCK_WAIT_MS = DEFAULT_HISTORY_LOCK_WAIT_SECONDS * 1000;
/** Pause between tries while waiting: the kernel does not say when a lock is freed. */
const LOCK_RETRY_MS = 20;

export interface LockOptions {
  /** How long to wait for a holder to let go (HISTORY_LOCK_WAIT_MS). */
  waitMs?: number;
  /** Called once when the lock is held by another open file and the wait begins. */
  onWait?: (holder: string) => void;
}

/**
 * One daemon writes a history at a time: two appending to the same segment would interleave
 * records at offsets neither expects, and one repairing damage at start could replace a file
 * the other still writes. The lock is the kernel's: an exclusive open-file-description lock
 * (`fcntl(F_OFD_SETLK)`, through fs-native-extensions) on `history.lock`, taken at start and
 * held until the daemon closes the file or dies — however it dies, the kernel releases it
 * when the process is gone, and never earlier. A PID is written into the file only to name the
 * holder in messages; nothing reads it to decide. The descriptor is close-on-exec: no session
 * inherits the lock.
 */
export class HistoryLock {
  private constructor(
    private fd: number | null,
    readonly path: string,
  ) {}

  /** Takes the lock, waiting up to `waitMs` for a holder; throws naming the holder if it stays. */
  static acquire(path: string, opts: LockOptions = {}): HistoryLock {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Node opens every file close-on-exec. Never through a link (it is truncated below), never
    // another user's file.
    const fd = openOwnSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      if (!tryLock(fd)) {
        opts.onWait?.(holderOf(path));
        const deadline = Date.now() + (opts.waitMs ?? HISTORY_LOCK_WAIT_MS);
        while (!tryLock(fd)) {
          if (Date.now() >= deadline)
            throw new Error(
              `the history is in use by another clippyd (${holderOf(path)}, lock ${path})`,
            );
          sleep(LOCK_RETRY_MS);
        }
      }
      ftruncateSync(fd, 0);
      writeSync(fd, `${process.pid}\n`, 0);
      return new HistoryLock(fd, path);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Lets go (closing the file releases the lock). The file stays: removing it would race a new holder. */
  release(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

/** Who the lock file says holds it, for messages only. */
function holderOf(path: string): string {
  try {
    const pid = readOwnFileSync(path).toString('utf8').trim();
    return /^\d+$/.test(pid) ? `pid ${pid}` : 'pid unknown';
  } catch {
    return 'pid unknown';
  }
}

/**
 * Blocks the thread for `ms`: the lock is taken while the daemon starts, before it serves
 * anything, and clients that connect meanwhile wait in the socket's backlog.
 */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
