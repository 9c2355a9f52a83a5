/**
 * An interrupted benchmark leaves nothing behind (not a benchmark itself: run.ts skips `_`
 * files). A Ctrl-C reaches only the terminal's foreground process group, and the daemons, tmux
 * servers and busy loops a benchmark starts run in sessions of their own: without this they
 * would outlive the run, with their temp dirs. Importing this module is what arms it.
 */
import { DaemonEnv } from '@clippy/testkit/daemon';

/** The exit code of a process ended by each signal (128 + its number), as a shell reports it. */
const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/** What the run must still undo, in the order it was registered. */
const undo = new Set<() => void>();

/**
 * Runs `cleanup` (synchronous: the process exits right after) if the run ends on SIGINT,
 * SIGTERM or SIGHUP. Returns the function that forgets it, for when the resource is released the
 * normal way. Every test daemon environment not yet disposed (DaemonEnv.live) is stopped too,
 * without being registered here.
 */
export function onInterrupt(cleanup: () => void): () => void {
  undo.add(cleanup);
  return () => undo.delete(cleanup);
}

/** Set once the cleanup has begun. */
let exiting = false;

function interrupted(code: number): void {
  // A Ctrl-C comes twice: to the whole process group, then relayed by tsx's parent process. The
  // handler stays installed (a signal with no listener left would end the process at once, in
  // the middle of the cleanup) and the second one is ignored.
  if (exiting) return;
  exiting = true;
  // The latest first: a temp dir goes after the process that used it.
  for (const cleanup of [...undo].reverse()) {
    try {
      cleanup();
    } catch {
      // The rest still runs.
    }
  }
  for (const env of [...DaemonEnv.live]) {
    try {
      env.disposeNow();
    } catch {
      // The rest still runs.
    }
  }
  process.exit(code);
}

for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES))
  process.on(signal, () => interrupted(code));
