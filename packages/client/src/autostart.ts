import { DAEMON_NODE_FLAGS } from '@clippy/protocol';
import { DaemonStartError } from './errors.js';

/**
 * Longest wait for a freshly started daemon to answer `hello`: node start-up plus binding, on a
 * slow machine (13 s seen on a 2-core box at a load average of 23, where 5 s failed `clippy
 * daemon start` and the command that auto-started it). A deadline only: the client goes on as
 * soon as the daemon answers.
 */
export const DAEMON_START_TIMEOUT_MS = 20_000;
/** First pause between connection attempts while the daemon starts; doubled each time. */
export const DAEMON_POLL_INITIAL_MS = 10;
/** Longest pause between attempts, so a daemon that is ready is noticed quickly. */
export const DAEMON_POLL_MAX_MS = 200;

/** clippyd's exit code when another broker already answers on the socket (a lost start race). */
export const DAEMON_EXIT_ALREADY_RUNNING = 3;

export interface StartDaemonOptions {
  /** Path of `clippyd.js` (the CLI resolves it; env CLIPPYD_PATH overrides). */
  daemonPath: string;
  /** Explicit socket path, passed on as `--socket` (otherwise the daemon derives it from the env). */
  socket?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra arguments for the daemon. */
  args?: string[];
}

export interface StartedDaemon {
  pid: number;
  /** Set once the child exits while we still watch it (it crashed, or another daemon won the race). */
  exited: () => { code: number | null; signal: NodeJS.Signals | null } | null;
  /** What the daemon said on stderr before it exited (why it could not start), trimmed. */
  said: () => string;
  /** Stops watching the child; it keeps running on its own. */
  release: () => void;
}

/** The most of the daemon's start-up stderr kept for the message. */
const SAID_MAX_BYTES = 4096;

/**
 * Starts clippyd detached from this process (own session, no stdio but stderr), so it outlives
 * the caller. Its stderr goes to a file of its own (0600, in a private temp folder, unlinked
 * once it is read or the daemon is released): a daemon that cannot start says why there (its
 * log is not open yet), and the caller can repeat it; one that runs keeps writing to a file no
 * one sees, never to a closed pipe.
 */
export function startDaemonProcess(opts: StartDaemonOptions): StartedDaemon {
  const args = [
    ...DAEMON_NODE_FLAGS,
    opts.daemonPath,
    ...(opts.socket ? ['--socket', opts.socket] : []),
    ...(opts.args ?? []),
  ];
  // Loaded on the first start rather than imported: some 8 ms every client would pay.
  const { spawn } = process.getBuiltinModule('node:child_process');
  const fs = process.getBuiltinModule('node:fs');
  const { tmpdir } = process.getBuiltinModule('node:os');
  const { join } = process.getBuiltinModule('node:path');
  let folder: string | null = null;
  let errFd: number | 'ignore' = 'ignore';
  try {
    folder = fs.mkdtempSync(join(tmpdir(), 'clippyd-start-'));
    errFd = fs.openSync(join(folder, 'stderr'), 'w+', 0o600);
  } catch {
    folder = null; // no temp folder: the daemon starts without a say
  }
  const forget = () => {
    if (typeof errFd === 'number') fs.closeSync(errFd);
    errFd = 'ignore';
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    folder = null;
  };
  let child;
  try {
    child = spawn(process.execPath, args, {
      detached: true,
      stdio: ['ignore', 'ignore', errFd],
      env: opts.env ?? process.env,
    });
  } catch (err) {
    forget();
    throw err;
  }
  const said = (): string => {
    if (typeof errFd !== 'number') return '';
    try {
      const buf = Buffer.alloc(SAID_MAX_BYTES);
      const n = fs.readSync(errFd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('utf8').trim();
    } catch {
      return '';
    }
  };
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let spawnError: Error | null = null;
  const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
    (exitInfo = { code, signal });
  const onError = (err: Error) => (spawnError = err);
  child.on('exit', onExit);
  child.on('error', onError);
  child.unref();
  if (child.pid === undefined) {
    forget();
    throw new DaemonStartError(
      `could not start the clippy daemon (${opts.daemonPath}): ${spawnError ?? 'spawn failed'}`,
    );
  }
  return {
    pid: child.pid,
    exited: () => exitInfo,
    said,
    release: () => {
      forget();
      child.off('exit', onExit);
      // Keep an error listener: an unhandled 'error' event would crash the caller.
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
