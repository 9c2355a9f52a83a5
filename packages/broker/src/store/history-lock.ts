import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * One daemon writes a history at a time: two appending to the same segment would interleave
 * records at offsets neither expects, and one repairing damage at start could replace a file
 * the other still writes. The lock is a file holding the owner's PID, created exclusively; one
 * left by a daemon that died (kill -9) names a process that no longer exists and is taken over.
 */
export class HistoryLock {
  private constructor(private readonly path: string) {}

  /** Takes the lock, or throws naming the live daemon that holds it. */
  static acquire(path: string): HistoryLock {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
        return new HistoryLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new Error(`the history is in use by another clippyd (pid ${owner}, lock ${path})`);
      }
      unlinkSync(path); // stale: its daemon is gone
    }
    throw new Error(`could not take the history lock ${path}`);
  }

  release(): void {
    try {
      if (Number(readFileSync(this.path, 'utf8').trim()) === process.pid) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
