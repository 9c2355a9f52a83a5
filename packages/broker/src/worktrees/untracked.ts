import { readNewFiles } from '@clippy/system/git';
import type { ParsedFile } from './diff-parse.js';

// New files git does not track yet, read by the reader `clippy diff` uses too (system's
// new-files.ts), as the parsed files of git's own diff are: added from nothing.

/** A new file, with what pairing it with a deleted one (a move) needs: its blob ID. */
export interface UntrackedFile extends ParsedFile {
  /** Its blob ID, as git would store it; null when it was not read. */
  id: string | null;
}

/** The new files among `paths` (relative to the worktree's top), as parsed files. */
export async function readUntrackedFiles(
  top: string,
  paths: string[],
  format: 'sha1' | 'sha256',
  withPatch: boolean,
): Promise<UntrackedFile[]> {
  const files = await readNewFiles(top, paths, format);
  return files.map(({ mode, id, diff }) => {
    const { header, hunks, ...entry } = diff;
    return {
      ...entry,
      oldMode: '000000',
      newMode: mode,
      oldId: '0'.repeat(format === 'sha256' ? 64 : 40),
      id,
      ...(withPatch ? { header, hunks } : {}),
    };
  });
}
