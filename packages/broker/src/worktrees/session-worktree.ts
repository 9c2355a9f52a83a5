import type { WorktreeChanges, WorktreeInfo } from '@clippy/protocol';

/**
 * Where a session's worktree is and what it was made from: what the history keeps of it
 * (store/record-format.ts), so that a session read back after a restart (and, later, revived)
 * finds its worktree again.
 */
export interface WorktreeRecord {
  /** The worktree's directory. */
  path: string;
  /** `clippy/NAME`. */
  branch: string;
  /** The commit it was created from. */
  base: string;
  /** The full ref it was created from (`refs/heads/main`); null: a commit (detached HEAD, a hash). */
  base_ref: string | null;
  /** The repository's common git directory. */
  repo: string;
  /** The repository's object format (its blob IDs): new files are paired with deleted ones by them. */
  object_format: 'sha1' | 'sha256';
}

/**
 * A session's worktree and its change counts, kept here (computed off the output path by
 * Worktrees) so that `list_sessions` answers from memory.
 */
export class SessionWorktree {
  changes: WorktreeChanges | null = null;
  /** Something happened since the counts were taken (a turn, an exit): count again when asked. */
  stale = true;
  /** The count under way, which every caller meanwhile shares. */
  counting: Promise<void> | null = null;

  constructor(readonly record: WorktreeRecord) {}

  info(): WorktreeInfo {
    const { path, branch, base, base_ref, repo } = this.record;
    return { path, branch, base, base_ref, repo, changes: this.changes };
  }
}
