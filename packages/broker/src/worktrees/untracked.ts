import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { newFileDiff } from '@clippy/protocol';
import type { ParsedFile } from './diff-parse.js';

// New files git does not track yet are part of a session's work: an agent that writes a file
// rarely runs `git add`. git diff shows none of them, and asking git to (`add -N` into a copy
// of the index) doubles the time of a diff; so they are read here and written as git writes a
// new file's patch (newFileDiff, shared with `clippy diff`). Ignored files (.gitignore) are
// not listed.

/** Largest new file read for its lines; a larger one is shown as binary, unread. */
export const UNTRACKED_TEXT_MAX_BYTES = 8 * 1024 * 1024;
/** New files read at once. */
const READ_CONCURRENCY = 16;

/** A new file, with what pairing it with a deleted one (a move) needs: its blob ID. */
export interface UntrackedFile extends ParsedFile {
  /** Its blob ID, as git would store it; null when it was not read. */
  id: string | null;
}

function blobId(content: Buffer, format: 'sha1' | 'sha256'): string {
  return createHash(format).update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** One new file as git's patch of it would show it; null for what git would not add (a FIFO). */
async function readUntracked(
  top: string,
  rel: string,
  format: 'sha1' | 'sha256',
  withPatch: boolean,
): Promise<UntrackedFile | null> {
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
    if (st.size <= UNTRACKED_TEXT_MAX_BYTES) content = await readFile(file).catch(() => null);
  } else return null;

  const id = content ? blobId(content, format) : null;
  const { header, hunks, ...entry } = newFileDiff(rel, mode, content, id);
  return {
    ...entry,
    oldMode: '000000',
    newMode: mode,
    oldId: '0'.repeat(format === 'sha256' ? 64 : 40),
    id,
    ...(withPatch ? { header, hunks } : {}),
  };
}

/** The new files among `paths` (relative to the worktree's top), read a few at a time. */
export async function readUntrackedFiles(
  top: string,
  paths: string[],
  format: 'sha1' | 'sha256',
  withPatch: boolean,
): Promise<UntrackedFile[]> {
  const out: (UntrackedFile | null)[] = new Array<UntrackedFile | null>(paths.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      out[i] = await readUntracked(top, paths[i]!, format, withPatch);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  return out.filter((f): f is UntrackedFile => f !== null);
}
