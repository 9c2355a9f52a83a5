import { readlinkSync } from 'node:fs';
import os from 'node:os';

/**
 * Lowers the scheduling priority of the calling thread (not the process) to `nice`. On Linux a
 * thread is a task with its own id, found through /proc/thread-self; elsewhere, or when the
 * system refuses, the thread keeps its priority (it only runs a little less politely).
 */
export function lowerThreadPriority(nice: number): void {
  if (process.platform !== 'linux' || !Number.isInteger(nice) || nice <= 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, nice);
  } catch {
    // No /proc, or not allowed: run at the normal priority.
  }
}
