import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readlinkSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

// The files clippy keeps for the user ($XDG_STATE_HOME/clippy: the log, the web view's token,
// the history and its lock) are opened only when they are the user's own: never through a
// symbolic link (O_NOFOLLOW), never one another user made, and their folder is the user's own
// directory, which no one else can write in. Another user who made the folder first (its
// parent was open to them) or planted a link in it would otherwise have the daemon use their
// token or write through their link as the user.

const { O_NOFOLLOW, O_TRUNC, O_RDONLY } = constants;

/** A folder or file clippy keeps for the user is not the user's own (or is a link): refused. */
export class NotOwnError extends Error {
  override readonly name = 'NotOwnError';
}

function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Why `st` (what lstat or fstat said of `path`) is not the user's own: a link, or another
 * user's; null when it is theirs.
 */
function notOwn(path: string, st: Stats): string | null {
  if (st.isSymbolicLink()) return linkText(path);
  const me = myUid();
  if (me !== undefined && st.uid !== me)
    return `${path} belongs to another user (uid ${st.uid}), not to you (uid ${me})`;
  return null;
}

/**
 * The user's own thing of the wrong kind (a file where the folder goes): no one else's doing,
 * so not refused as foreign; it fails as the system would (the daemon runs without what it
 * could not open, and says so).
 */
function wrongKind(path: string, kind: 'directory' | 'regular file', code: string): Error {
  return Object.assign(new Error(`${code}: ${path} is not a ${kind}`), { code });
}

function linkText(path: string): string {
  let target = '?';
  try {
    target = readlinkSync(path);
  } catch {
    // gone meanwhile: said without its target
  }
  return `${path} is a symbolic link (to ${target})`;
}

/**
 * Makes sure `dir` is the user's own directory (0700), making it when it is missing (`create`).
 * Refused with NotOwnError when it is a symbolic link, not a directory or another user's, or
 * when its parent lets another user replace it (another's directory, or one others may write in
 * without the sticky bit). Other failures (a read-only home) are thrown as they are.
 */
export function ownFolder(dir: string, what: string, create = true): void {
  if (create) {
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const st = lstatSync(dir);
  const why = notOwn(dir, st);
  if (why) throw new NotOwnError(`${what} ${why}: clippy refuses to use it (${fix(dir)})`);
  if (!st.isDirectory()) throw wrongKind(dir, 'directory', 'ENOTDIR');
  const parent = dirname(dir);
  const pst = statSync(parent);
  const me = myUid();
  if (me !== undefined && pst.uid !== me && pst.uid !== 0)
    throw new NotOwnError(
      `${what} ${dir} is in ${parent}, which belongs to another user (uid ${pst.uid}) who could replace it: clippy refuses to use it (set XDG_STATE_HOME to a folder of your own)`,
    );
  if ((pst.mode & 0o022) !== 0 && (pst.mode & 0o1000) === 0)
    throw new NotOwnError(
      `${what} ${dir} is in ${parent}, which other users may write in (mode ${(pst.mode & 0o7777).toString(8)}) and so replace it: clippy refuses to use it (chmod go-w ${parent})`,
    );
  // Only the user (and root) can change it from here: tightened, as the runtime folder is.
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

function fix(dir: string): string {
  return `remove or rename it and clippy makes its own: ${dir}`;
}

/** What opening `path` with O_NOFOLLOW threw, in words when it met a symbolic link. */
function opened(path: string, err: unknown): Error {
  if ((err as NodeJS.ErrnoException).code === 'ELOOP')
    return new NotOwnError(`${linkText(path)}: clippy never opens its files through one`);
  return err as Error;
}

/** Refuses an open file that is not the user's own regular file. */
function checkOpened(path: string, st: Stats): void {
  const why = notOwn(path, st);
  if (why) throw new NotOwnError(`${why}: clippy refuses to use it (${fix(path)})`);
  if (!st.isFile()) throw wrongKind(path, 'regular file', 'EINVAL');
}

/**
 * Opens a file clippy keeps, never through a symbolic link and only when it is the user's own
 * regular file (O_TRUNC is applied once that is known: another's file is never emptied).
 */
export function openOwnSync(path: string, flags: number, mode = 0o600): number {
  let fd: number;
  try {
    fd = openSync(path, (flags & ~O_TRUNC) | O_NOFOLLOW, mode);
  } catch (err) {
    throw opened(path, err);
  }
  try {
    checkOpened(path, fstatSync(fd));
    if (flags & O_TRUNC) ftruncateSync(fd, 0);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** The same, asynchronously: a FileHandle. */
export async function openOwn(path: string, flags: number, mode = 0o600): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    fh = await open(path, (flags & ~O_TRUNC) | O_NOFOLLOW, mode);
  } catch (err) {
    throw opened(path, err);
  }
  try {
    checkOpened(path, await fh.stat());
    if (flags & O_TRUNC) await fh.truncate(0);
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** A file clippy keeps, read whole (openOwnSync's rules); `tighten`: its mode set to that. */
export function readOwnFileSync(path: string, tighten?: number): Buffer {
  const fd = openOwnSync(path, O_RDONLY);
  try {
    const st = fstatSync(fd);
    if (tighten !== undefined && (st.mode & 0o777) !== tighten) fchmodSync(fd, tighten);
    const size = st.size;
    const buf = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buf, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** Writes a file clippy keeps whole (created 0600, or emptied first; openOwnSync's rules). */
export function writeOwnFileSync(path: string, data: string | Buffer, mode = 0o600): void {
  const fd = openOwnSync(path, constants.O_WRONLY | constants.O_CREAT | O_TRUNC, mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let at = 0;
    while (at < buf.length) at += writeSync(fd, buf, at, buf.length - at);
  } finally {
    closeSync(fd);
  }
}
