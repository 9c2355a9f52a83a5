/** Busy cores for the benchmarks (BENCH_BUSY): not a benchmark itself (run.ts skips `_` files). */
import { spawn } from 'node:child_process';

/** CPU hogs started for a run, stopped together. */
export interface CpuHogs {
  /** The session leader's PID: the hogs are its children, in its process group. */
  pid: number;
  stop(): void;
}

/**
 * Starts `count` busy loops in one session of their own, as a build running in another
 * terminal is (`make -j2`, `stress-ng --cpu 2`): the kernel then weighs them against the
 * measured processes as one group (autogroup). Hogs started in the benchmark's own session would
 * share its group and slow the harness as much as the paths it measures: every path's tail then
 * looks alike.
 */
export function startCpuHogs(count: number): CpuHogs {
  const loops = Array.from({ length: count }, () => '(while :; do :; done) &').join(' ');
  const leader = spawn('sh', ['-c', `${loops} wait`], { detached: true, stdio: 'ignore' });
  // A failed spawn is told by the missing PID below; its later 'error' event must not crash.
  leader.once('error', () => {});
  leader.unref();
  const pid = leader.pid;
  if (pid === undefined) throw new Error('could not start the CPU hogs: sh did not start');
  let stopped = false;
  return {
    pid,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        // The group: the leader and every loop it started.
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    },
  };
}

/** BENCH_BUSY=N: how many hogs to start (0: none); an invalid value is an error. */
export function busyCount(value = process.env.BENCH_BUSY): number {
  if (value === undefined || value === '') return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64)
    throw new Error(`BENCH_BUSY must be a whole number of CPU hogs from 0 to 64, not "${value}"`);
  return n;
}
