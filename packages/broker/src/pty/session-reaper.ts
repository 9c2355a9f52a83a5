import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../log.js';

/**
 * Seconds the reaper gives the sessions of a daemon that is gone to end on SIGTERM before it
 * sends SIGKILL: an agent saving its state takes well under this; "a few seconds" at most.
 */
export const REAPER_GRACE_S = 2;

/**
 * The reaper: a small `/bin/sh` process the daemon starts beside itself, reading its list of
 * session process groups (`+PGID` when one starts, `-PGID` when it ends) on a pipe. When the
 * pipe closes — the daemon is gone, however it ended: `kill -9`, a crash, an OOM kill — the
 * reaper sends SIGTERM to every group still listed (and, on Linux, to every process still in
 * those sessions: a process that left its group keeps its session), gives them
 * REAPER_GRACE_S, sends SIGKILL to what is left, and exits.
 *
 * Why this mechanism: a daemon killed with SIGKILL runs no code, so whatever ends its sessions
 * must already run outside it. The PTY's hang-up (SIGHUP when the daemon's master side closes)
 * is not enough: Gemini CLI's node processes ignore SIGHUP and SIGTERM and ran on for as long
 * as anyone looked (issue 44). PR_SET_PDEATHSIG reaches only the daemon's direct child, is not
 * reachable from Node without a native addon, and does not exist on macOS; a process group
 * killed from outside reaches every process of the session, whatever it ignores. A shell costs
 * about a megabyte where a second node would cost forty, and needs nothing installed. The
 * daemon removes a group as soon as its session ended, so a PID that the kernel reuses later is
 * never signalled. A graceful stop ends the sessions itself first: the reaper then finds its
 * list empty and exits at once.
 */
const REAPER_SCRIPT = `
trap '' HUP INT PIPE
grace=$1
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) p=\${line#-}; kept=' '
        for g in $groups; do [ "$g" = "$p" ] || kept="$kept$g "; done
        groups=$kept ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
signal() {
  for g in $groups; do kill -s "$1" -- "-$g" 2>/dev/null; done
  ps -e -o pid= -o sid= 2>/dev/null | while read -r pid sid; do
    case "$groups" in *" $sid "*) kill -s "$1" "$pid" 2>/dev/null ;; esac
  done
}
alive() {
  for g in $groups; do kill -s 0 -- "-$g" 2>/dev/null && return 0; done
  return 1
}
signal TERM
n=$((grace * 10))
while [ "$n" -gt 0 ] && alive; do sleep 0.1; n=$((n - 1)); done
signal KILL
`;

/**
 * The reaper as the daemon holds it: told of each session's group as it starts and ends. Its
 * process starts with the daemon (`start`), not with the first session: starting it is a fork of
 * the daemon, and after a fork the daemon's next writes fault on every page it had, which cost
 * the first session's first flood of output (see pty-spawner.ts in @clippy/system).
 */
export class SessionReaper {
  private child: ChildProcess | null = null;
  private started = false;
  private disposed = false;

  constructor(private readonly log: Logger) {}

  /** A session's process started: its group (its PID: it is a session leader). */
  add(pgid: number): void {
    if (!this.started) this.start();
    this.write(`+${pgid}\n`);
  }

  /** A session's process ended: its group is never signalled by the reaper. */
  remove(pgid: number): void {
    this.write(`-${pgid}\n`);
  }

  /** The daemon stops (its sessions ended): the reaper ends what is still listed, then exits. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.child?.stdin?.end();
  }

  /** Starts the reaper's process (once; the first `add` does, if this was not called). */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    const { log } = this;
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'clippyd-reaper', String(REAPER_GRACE_S)], {
        // Its own session: a terminal's hang-up or Ctrl-C that ends a foreground daemon does
        // not end the reaper with it.
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
        // Nothing of the daemon's environment (a test's leftover sweep finds it by that).
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
    } catch (err) {
      log.warn({ err }, 'session reaper not started: sessions may outlive a crashed daemon');
      return;
    }
    this.child = child;
    child.on('error', (err) =>
      log.warn({ err }, 'session reaper failed: sessions may outlive a crashed daemon'),
    );
    child.on('exit', (code, signal) => {
      if (!this.disposed)
        log.warn(
          { code, signal },
          'session reaper ended: sessions may outlive a crashed daemon (restart the daemon to have one again)',
        );
    });
    child.stdin?.on('error', () => {});
    // Neither the process nor its pipe keeps the daemon running.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }

  private write(line: string): void {
    if (this.disposed || !this.child?.stdin?.writable) return;
    this.child.stdin.write(line);
  }
}
