import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` runs. One that ended and is not reaped yet (a zombie) has ended: its
 * parent may be busy, or be an init that never reaps (some containers' is), and then it stays a
 * zombie for good, which a signal 0 still reaches. A PID only another user may signal (EPERM)
 * was reused by someone else's process: not ours, so not running.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // Without /proc (macOS) the signal is all there is to tell.
  if (process.platform !== 'linux') return true;
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
