import fs from 'node:fs';
import tty from 'node:tty';

/** A Unix98 pseudo-terminal's slave: the only kind of terminal the daemon opens (see below). */
const PTY_SLAVE_PATH = /^\/dev\/pts\/\d+$/;

/** The descriptors of the attach client that must be its terminal: stdin or stdout. */
const CLIENT_TERMINAL_FDS = [0, 1];

export type OpenedTerminal = { ok: true; fd: number } | { ok: false; reason: string };

/**
 * Opens the terminal an attach client offers (direct attach), after checking that it is that
 * client's: a pseudo-terminal's slave (`/dev/pts/N`), a character device owned by the daemon's
 * user, which process `pid` has as its stdin or stdout (Linux's /proc). Anything else is refused
 * with the reason, and the client relays instead. Only pseudo-terminals: libuv gives the daemon a
 * non-blocking descriptor of its own only for those; with any other terminal its writes would
 * block, and a stopped terminal would stop the daemon. Never becomes the daemon's controlling
 * terminal (O_NOCTTY). Linux only: elsewhere there is no /proc to check the client with.
 */
export function openClientTerminal(path: string, pid: number): OpenedTerminal {
  if (process.platform !== 'linux') {
    return { ok: false, reason: 'direct attach needs Linux (/proc) to check the terminal' };
  }
  if (!PTY_SLAVE_PATH.test(path)) {
    return { ok: false, reason: `${path} is not a pseudo-terminal (/dev/pts/N)` };
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch (err) {
    return { ok: false, reason: `${path}: ${(err as Error).message}` };
  }
  if (!st.isCharacterDevice()) return { ok: false, reason: `${path} is not a terminal device` };
  const uid = process.getuid?.();
  if (st.uid !== uid) {
    return { ok: false, reason: `${path} belongs to uid ${st.uid}, not the daemon's (${uid})` };
  }
  if (!CLIENT_TERMINAL_FDS.some((fd) => sameFile(`/proc/${pid}/fd/${fd}`, st))) {
    return { ok: false, reason: `${path} is not the stdin or stdout of process ${pid}` };
  }
  let fd: number;
  try {
    const { O_RDWR, O_NOCTTY, O_NONBLOCK } = fs.constants;
    fd = fs.openSync(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
  } catch (err) {
    return { ok: false, reason: `${path}: ${(err as Error).message}` };
  }
  // What was opened is what was checked (not a device swapped in between), and a terminal.
  const opened = fs.fstatSync(fd);
  if (opened.rdev !== st.rdev || opened.uid !== uid || !tty.isatty(fd)) {
    fs.closeSync(fd);
    return { ok: false, reason: `${path} changed while it was opened` };
  }
  return { ok: true, fd };
}

/** Whether a /proc descriptor link leads to the device `st` describes. */
function sameFile(link: string, st: fs.Stats): boolean {
  try {
    const target = fs.statSync(link);
    return target.isCharacterDevice() && target.rdev === st.rdev;
  } catch {
    // No such process or descriptor, or another user's process.
    return false;
  }
}
