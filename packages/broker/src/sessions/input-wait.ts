import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import type { SessionState } from '@clippy/protocol';

/**
 * How long a busy session's output must have been quiet before the kernel is asked whether its
 * program waits for terminal input, and how often it is asked again while busy: long enough
 * that a program between two writes is not taken for one that waits, short enough that `send`
 * to a program in `input()` goes through at once to a person's eye.
 */
export const INPUT_WAIT_PROBE_MS = 300;

/**
 * How long a program may print without showing a prompt before it counts as running (`busy`)
 * rather than starting: agents and shells show their first prompt within a few seconds; a
 * build, a server or `tail -f` never does, and was shown `starting` for as long as it ran.
 */
export const STARTING_WITHOUT_PROMPT_MS = 5_000;

/**
 * System calls in which a process waits for its terminal, by architecture: `read` on it, or
 * `select`/`pselect6` on descriptor 0 alone (GNU readline's wait). Programs that wait in
 * epoll (Node, most TUIs) cannot be told apart from busy ones and are not listed.
 */
const WAIT_SYSCALLS: Record<string, { read: number; select: number[] }> = {
  x64: { read: 0, select: [23, 270] },
  arm64: { read: 63, select: [72] },
};

function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const list = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (list) for (const c of list.split(' ')) out.push(Number(c));
    }
  } catch {
    // Gone while we looked.
  }
  return out;
}

/** Fields of /proc/PID/stat after the command name: [state, ppid, pgrp, session, tty_nr, tpgid, …]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Whether process `pid` sits in one of `calls` on the terminal `ptsName`. */
function waitsOn(pid: number, ptsName: string, calls: { read: number; select: number[] }): boolean {
  let syscall: string[];
  try {
    syscall = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
  } catch {
    return false;
  }
  const nr = Number(syscall[0]);
  let fd: number;
  if (nr === calls.read) fd = parseInt(syscall[1] ?? '', 16);
  else if (calls.select.includes(nr) && parseInt(syscall[1] ?? '', 16) === 1) fd = 0;
  else return false;
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`) === ptsName;
  } catch {
    return false;
  }
}

/**
 * Whether a process of the terminal's foreground process group — among the session's own
 * processes — is blocked waiting for input from the terminal (Linux: /proc). Null where this
 * cannot be told (another OS or architecture, no /proc).
 */
export function waitsForTerminalInput(leader: number, ptsName: string): boolean | null {
  const calls = WAIT_SYSCALLS[process.arch];
  if (process.platform !== 'linux' || !calls) return null;
  const tpgid = statFields(leader)?.[5];
  if (tpgid === undefined) return null;
  const seen = new Set<number>();
  const queue = [leader];
  while (queue.length) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    if (statFields(pid)?.[2] === tpgid && waitsOn(pid, ptsName, calls)) return true;
    queue.push(...children(pid));
  }
  return false;
}

/** What the watch needs of a session. */
export interface InputWaitSession {
  readonly live: boolean;
  readonly pid: number;
  readonly ptsName: string | undefined;
  readonly outputBytes: number;
  setState(state: SessionState): void;
  /** Calls `listener` after every output chunk; returns the unsubscribe. */
  onActivity(listener: () => void): () => void;
}

/**
 * Reports a line program that waits for input without printing a prompt (`input()`, `read`,
 * `cat`) as `blocked` — it waits for the person, as a question dialog does — instead of
 * `busy` forever: while the detector says busy, the output has been quiet for
 * INPUT_WAIT_PROBE_MS and the kernel says the foreground process waits in a terminal read.
 * The first output after that makes it busy again. The turn is not affected: it still ends
 * only at the prompt.
 */
export class InputWaitWatch {
  private detected: SessionState = 'starting';
  private timer: NodeJS.Timeout | null = null;
  private lastOutput = -1;
  private offActivity: (() => void) | null = null;
  /** Until the first prompt: hears the first output, then waits for a prompt that may not come. */
  private offFirstOutput: (() => void) | null;
  private startingTimer: NodeJS.Timeout | null = null;

  constructor(private readonly session: InputWaitSession) {
    this.offFirstOutput = session.onActivity(() => this.firstOutput());
  }

  /** The detector's state: passed on, and the watch runs while it is `busy`. */
  stateChanged(state: SessionState): void {
    this.detected = state;
    this.stopStarting();
    this.clearBlocked();
    this.session.setState(state);
    if (state === 'busy') this.watch();
    else this.stop();
  }

  private watch(): void {
    if (this.timer) return;
    this.lastOutput = this.session.outputBytes;
    this.timer = setInterval(() => this.probe(), INPUT_WAIT_PROBE_MS);
    this.timer.unref();
  }

  /**
   * The program printed and no prompt has come: after STARTING_WITHOUT_PROMPT_MS it is shown
   * running (`busy`, and `blocked` when it then waits on a terminal read), not `starting`. Its
   * first prompt, if one ever comes, makes it ready as always.
   */
  private firstOutput(): void {
    this.offFirstOutput?.();
    this.offFirstOutput = null;
    if (this.detected !== 'starting' || this.startingTimer) return;
    this.startingTimer = setTimeout(() => {
      this.startingTimer = null;
      if (this.detected !== 'starting' || !this.session.live) return;
      this.session.setState('busy');
      this.watch();
    }, STARTING_WITHOUT_PROMPT_MS);
    this.startingTimer.unref();
  }

  private stopStarting(): void {
    this.offFirstOutput?.();
    this.offFirstOutput = null;
    if (this.startingTimer) clearTimeout(this.startingTimer);
    this.startingTimer = null;
  }

  private probe(): void {
    const s = this.session;
    if (!s.live || !s.ptsName) return this.dispose();
    const out = s.outputBytes;
    const quiet = out === this.lastOutput;
    this.lastOutput = out;
    if (!quiet || this.offActivity || waitsForTerminalInput(s.pid, s.ptsName) !== true) return;
    this.offActivity = s.onActivity(() => {
      if (s.outputBytes === out) return;
      this.clearBlocked();
      // Still without a prompt: running, as before it waited.
      if (s.live) s.setState(this.detected === 'starting' ? 'busy' : this.detected);
    });
    s.setState('blocked');
  }

  private clearBlocked(): void {
    this.offActivity?.();
    this.offActivity = null;
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  dispose(): void {
    this.stop();
    this.stopStarting();
    this.clearBlocked();
  }
}
