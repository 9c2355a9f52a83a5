import os from 'node:os';
import { EXIT } from '../exit-codes.js';

/** A signal that ends an attach (the terminal closed, or the user or a supervisor stopped it). */
export type EndingSignal = 'SIGTERM' | 'SIGHUP' | 'SIGINT';
export const ENDING_SIGNALS: readonly EndingSignal[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];

/** How an attach ends: its exit code, and what the user sees on the way out. */
export interface Ending {
  code: number;
  /** Printed once the terminal is restored. */
  message?: string;
  /** Wait for the terminal to take pending output first (not when it is gone). */
  flush: boolean;
  /** The message goes to stderr (an error), not stdout (the detach notice, like tmux's). */
  isError: boolean;
  /** The session itself ended: leave the cursor where its last output put it. */
  sessionEnded: boolean;
  /**
   * Direct attach: the daemon gave the terminal back before this ending was known (the modes
   * the session left on are off, the cursor below its screen unless it ended), so the client
   * only leaves raw mode. False: it must restore blindly (see TerminalGuard.restore).
   */
  daemonRestored: boolean;
}

const base = { flush: true, isError: false, sessionEnded: false, daemonRestored: false };

/** The exit status a shell would report: the code, or 128 + the signal number. */
export function exitStatus(
  code: number | null | undefined,
  signal: string | null | undefined,
): number {
  if (typeof code === 'number') return code;
  if (signal) {
    const n = (os.constants.signals as Record<string, number>)[signal];
    if (n) return 128 + n;
  }
  return EXIT.failure;
}

/**
 * The session's program exited: its status passes through, as if it had run directly. The
 * daemon says so once its output is on the terminal (and, direct, the terminal given back).
 */
export function sessionExited(
  code: number | null | undefined,
  signal: string | null | undefined,
): Ending {
  return { ...base, code: exitStatus(code, signal), sessionEnded: true, daemonRestored: true };
}

/** The user pressed the detach key. */
export function userDetached(name: string): Ending {
  return { ...base, code: EXIT.ok, message: `[detached from ${name}]` };
}

/**
 * The broker detached us (the daemon stopping is "no broker"; anything else a failure), or, in
 * direct attach, saw the user type the detach key. Either way it sends this push only after it
 * gave the terminal back.
 */
export function brokerDetached(name: string, reason: string, message: string): Ending {
  if (reason === 'detach_key') return { ...userDetached(name), daemonRestored: true };
  return {
    ...base,
    code: reason === 'daemon_shutdown' ? EXIT.noBroker : EXIT.failure,
    message: `[detached from ${name}: ${message}]`,
    isError: true,
    daemonRestored: true,
  };
}

/** The connection to the daemon went away under us: nothing to wait for. */
export function connectionLost(message: string): Ending {
  return {
    ...base,
    code: EXIT.noBroker,
    message: `clippy: ${message}`,
    flush: false,
    isError: true,
  };
}

/** A signal stopped clippy: 128 + its number; after SIGHUP the terminal is gone, so no flush. */
export function signalled(signal: EndingSignal): Ending {
  return { ...base, code: 128 + os.constants.signals[signal], flush: signal !== 'SIGHUP' };
}

/** The terminal vanished (writes fail with EIO). */
export function terminalGone(): Ending {
  return { ...base, code: EXIT.failure, flush: false };
}
