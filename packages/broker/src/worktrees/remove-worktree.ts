import { lstat, readlink, unlink } from 'node:fs/promises';
import { HandlerError } from '../errors.js';
import { GIT_WORKTREE_TIMEOUT_MS, gitMessage, runGit } from './git.js';
import { listWorktrees } from './repository.js';
import type { WorktreeRecord } from './session-worktree.js';
import { inspectWork, uncommittedWork, unmergedWork } from './work.js';

/** What `remove` did with a session's worktree. */
export interface RemovedWorktree {
  path: string;
  /** Kept, with every commit on it. */
  branch: string;
  /** With `force`: the uncommitted work that went with it (null: none). */
  lost: string | null;
  /** What the link that had replaced the folder pointed to (the link went, this stayed). */
  link?: string;
}

/**
 * Removes a session's worktree (`git worktree remove`), keeping its branch: refused when it is
 * locked, and, unless `force`, when it holds uncommitted work or commits no other branch has, or
 * a checked-out submodule (whose own commits would go with it; git refuses that too).
 */
export async function removeWorktree(
  record: WorktreeRecord,
  session: string,
  force: boolean,
  env: Record<string, string>,
): Promise<RemovedWorktree> {
  const listed = await listWorktrees(record.repo, env).catch(() => []);
  const locked = listed.find((w) => w.path === record.path)?.locked ?? null;
  if (locked !== null) {
    throw new HandlerError(
      'worktree_locked',
      `the worktree ${record.path} is locked${locked ? ` (${locked})` : ''}: clippy leaves it alone (git worktree unlock ${record.path} frees it)`,
    );
  }
  const link = await linkTarget(record.path);
  if (link !== null) return removeLink(record, session, link, force, env);
  const work = await inspectWork(record, locked, env);
  const lost = work.missing ? null : uncommittedWork(work);
  const unmerged = work.missing ? null : unmergedWork(work, record.branch);
  const refuse = (what: string) =>
    new HandlerError(
      'worktree_has_changes',
      `session '${session}' has work in its worktree ${record.path}: ${what}. Nothing was removed: commit and merge it, or --force removes the worktree anyway (its branch ${record.branch} stays, with its commits)`,
    );
  if ((lost || unmerged) && !force) {
    throw refuse([lost ? `uncommitted: ${lost}` : null, unmerged].filter(Boolean).join('; '));
  }
  const r = await runGit(
    ['worktree', 'remove', ...(force || work.missing ? ['--force'] : []), record.path],
    { cwd: record.repo, env, timeoutMs: GIT_WORKTREE_TIMEOUT_MS },
  );
  if (r.code !== 0) {
    const words = gitMessage(r);
    if (/submodules/u.test(words)) {
      throw refuse('a checked-out submodule, whose own commits and changes would go with it');
    }
    throw new HandlerError('git_failed', `git worktree remove ${record.path}: ${words}`);
  }
  return { path: record.path, branch: record.branch, lost: force ? lost : null };
}

/** Where the worktree's path points when it is a symbolic link now; null when it is not one. */
async function linkTarget(path: string): Promise<string | null> {
  try {
    if (!(await lstat(path)).isSymbolicLink()) return null;
    return await readlink(path);
  } catch {
    return null; // gone, or unreadable: git says what it finds
  }
}

/**
 * The worktree's folder was replaced by a symbolic link: nothing of the worktree is there to
 * inspect, and whatever the link points to is not clippy's (following it, git would work on
 * another folder). Refused unless `force`; then the link itself is removed (never its target)
 * and git forgets the worktree, whose folder is gone.
 */
async function removeLink(
  record: WorktreeRecord,
  session: string,
  target: string,
  force: boolean,
  env: Record<string, string>,
): Promise<RemovedWorktree> {
  if (!force)
    throw new HandlerError(
      'worktree_replaced',
      `the worktree folder ${record.path} of session '${session}' has been replaced by a symbolic link (to ${target}); clippy does not follow it. Nothing was removed: --force removes the link and the session (${target} and the branch ${record.branch} stay)`,
    );
  await unlink(record.path);
  const r = await runGit(['worktree', 'remove', '--force', record.path], {
    cwd: record.repo,
    env,
    timeoutMs: GIT_WORKTREE_TIMEOUT_MS,
  });
  // The folder is gone; git may have forgotten it already (its own `prune`): nothing is left.
  if (r.code !== 0 && !/is not a working tree/u.test(gitMessage(r)))
    throw new HandlerError('git_failed', `git worktree remove ${record.path}: ${gitMessage(r)}`);
  return { path: record.path, branch: record.branch, lost: null, link: target };
}
