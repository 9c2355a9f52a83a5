import fs from 'node:fs';

/**
 * The PIDs of this user's processes whose environment has `XDG_RUNTIME_DIR=runtimeDir`: every
 * daemon a test's environment started (the CLI's auto-start included, answering or not: an
 * overloaded run left daemons that never answered the PID probe) and every agent those daemons
 * run. Read from /proc (Linux); elsewhere none are found. This process and its parent are never
 * named (a test may have put the variable in its own environment).
 */
export function processesWithRuntimeDir(runtimeDir: string): number[] {
  const wanted = Buffer.from(`XDG_RUNTIME_DIR=${runtimeDir}\0`);
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || pid === process.ppid) continue;
    let environ: Buffer;
    try {
      // Another user's, or gone since the listing: not ours to stop.
      environ = fs.readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    // Each variable ends with NUL; the first has no NUL before it.
    if (
      environ.subarray(0, wanted.length).equals(wanted) ||
      environ.includes(Buffer.concat([Buffer.from([0]), wanted]))
    )
      found.push(pid);
  }
  return found;
}

/** Whether `pid` runs: a zombie does not (it has ended; only its parent's wait is missing). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An orphan's zombie stays where nothing reaps (a container's first process may not).
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z';
  } catch {
    return true; // no /proc: kill(0) is all there is
  }
}
