import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { DiffFile } from '@clippy/protocol';
import { newFileDiff } from './diff-git.js';

// New files git does not track yet are part of a session's work: an agent that writes a file
// rarely runs `git add`. git diff shows none of them, and asking git to (`add -N` into a copy
// of the index) doubles the time of a diff; so they are read here and written as git writes a
// new file's patch. The daemon's `diff` and `clippy diff` (run where the worktree is) read them
// with this one reader, so the two show the same files the same way. Ignored files
// (.gitignore) are not listed.

/** Largest new file read for its lines; a larger one is shown as binary, unread. */
export const NEW_FILE_TEXT_MAX_BYTES = 8 * 1024 * 1024;
/** New files read at once: enough to hide the file system's latency, few enough to keep descriptors. */
const READ_CONCURRENCY = 16;

/** git's arguments that list the new files (under `pathspec`), each ended by a NUL. */
export function newFilesArgs(pathspec: readonly string[]): string[] {
  return ['ls-files', '--others', '--exclude-standard', '-z', ...pathspec];
}

/** The paths of newFilesArgs' output that are files git would add. */
export function newFilePaths(listed: Buffer): string[] {
  return (
    listed
      .toString('utf8')
      .split('\0')
      // A folder (a repository of its own inside the worktree) is not a file git would add.
      .filter((p) => p !== '' && !p.endsWith('/'))
  );
}

/** A file git does not track yet, as git's patch of it (once `add -N`) would show it. */
export interface NewFile {
  /** Relative to the worktree's top. */
  path: string;
  /** git's mode of it: 100644, 100755, or 120000 for a symbolic link. */
  mode: string;
  /** Its blob ID as git would store it (what pairs it with a deleted file: a move); null when not read. */
  id: string | null;
  /** The `diff` answer's file, with header and hunk. */
  diff: DiffFile;
}

function blobId(content: Buffer, format: 'sha1' | 'sha256'): string {
  return createHash(format).update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** One new file; null for what git would not add (a FIFO) or what is gone since it was listed. */
async function readNewFile(
  top: string,
  rel: string,
  format: 'sha1' | 'sha256',
): Promise<NewFile | null> {
  const file = path.join(top, rel);
  let st;
  try {
    st = await lstat(file);
  } catch {
    return null; // gone since it was listed
  }
  let mode: string;
  let content: Buffer | null = null;
  if (st.isSymbolicLink()) {
    mode = '120000';
    content = Buffer.from(await readlink(file));
  } else if (st.isFile()) {
    mode = st.mode & 0o100 ? '100755' : '100644';
    if (st.size <= NEW_FILE_TEXT_MAX_BYTES) content = await readFile(file).catch(() => null);
  } else return null;
  const id = content ? blobId(content, format) : null;
  return { path: rel, mode, id, diff: newFileDiff(rel, mode, content, id) };
}

/** The new files among `paths` (relative to the worktree's top `top`), in their order, read a few at a time. */
export async function readNewFiles(
  top: string,
  paths: readonly string[],
  format: 'sha1' | 'sha256',
): Promise<NewFile[]> {
  const out: (NewFile | null)[] = new Array<NewFile | null>(paths.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      out[i] = await readNewFile(top, paths[i]!, format);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  return out.filter((f): f is NewFile => f !== null);
}
