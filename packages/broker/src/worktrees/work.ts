import { existsSync } from 'node:fs';
import path from 'node:path';
import { gitMessage, runGit } from './git.js';
import { HandlerError } from '../errors.js';
import type { WorktreeRecord } from './session-worktree.js';

/** Names listed in a message about a worktree's work; the rest are counted. */
const NAMES_SHOWN = 5;

/** What removing a worktree would take with it, or leave only on its branch. */
export interface WorktreeWork {
  /** The folder is gone already (removed by hand). */
  missing: boolean;
  /** `git worktree lock`'s reason ('' when none was given); null: not locked. */
  locked: string | null;
  /** Tracked files changed, staged or not. */
  changed: string[];
  /** New files and folders git does not track (ignored ones are not counted). */
  untracked: string[];
  /** Files with merge conflicts. */
  conflicts: string[];
  /** A merge, rebase, cherry-pick, revert or bisect under way. */
  operation: string | null;
  /** Commits on the worktree's HEAD or branch that no other branch holds. */
  unmergedCommits: number;
}

/** Files in a worktree's git directory that say an operation is under way, and its name. */
const OPERATIONS: [file: string, name: string][] = [
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase'],
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['BISECT_LOG', 'a bisect'],
];

/** Reads a worktree's state: everything `describeWork` reports. */
export async function inspectWork(
  record: Pick<WorktreeRecord, 'path' | 'branch'>,
  locked: string | null,
  env: Record<string, string>,
): Promise<WorktreeWork> {
  const work: WorktreeWork = {
    missing: !existsSync(record.path),
    locked,
    changed: [],
    untracked: [],
    conflicts: [],
    operation: null,
    unmergedCommits: 0,
  };
  if (work.missing) return work;
  const opts = { cwd: record.path, env };
  const branchName = record.branch;
  const [status, gitDir, unmerged] = await Promise.all([
    runGit(['status', '--porcelain=v2', '-z', '--untracked-files=normal'], opts),
    runGit(['rev-parse', '--absolute-git-dir'], opts),
    runGit(
      [
        'rev-list',
        '--count',
        'HEAD',
        `refs/heads/${branchName}`,
        '--not',
        `--exclude=${branchName}`,
        '--branches',
        '--remotes',
      ],
      opts,
    ),
  ]);
  if (status.code !== 0) {
    throw new HandlerError(
      'git_failed',
      `cannot read the worktree ${record.path}: ${gitMessage(status)}`,
    );
  }
  const fields = status.stdout.toString('utf8').split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.startsWith('1 ')) work.changed.push(f.split(' ').slice(8).join(' '));
    else if (f.startsWith('2 ')) {
      work.changed.push(f.split(' ').slice(9).join(' '));
      i++; // the rename's old path follows
    } else if (f.startsWith('u ')) work.conflicts.push(f.split(' ').slice(10).join(' '));
    else if (f.startsWith('? ')) work.untracked.push(f.slice(2));
  }
  if (gitDir.code === 0) {
    const dir = gitDir.stdout.toString('utf8').trim();
    work.operation = OPERATIONS.find(([file]) => existsSync(path.join(dir, file)))?.[1] ?? null;
  }
  if (unmerged.code === 0) work.unmergedCommits = Number(unmerged.stdout.toString('utf8').trim());
  else {
    // The branch was deleted (or renamed) by hand: the worktree's HEAD alone.
    const headOnly = await runGit(
      ['rev-list', '--count', 'HEAD', '--not', '--branches', '--remotes'],
      opts,
    );
    if (headOnly.code === 0) work.unmergedCommits = Number(headOnly.stdout.toString('utf8'));
  }
  return work;
}

/** `3 files (a, b, c)`, at most NAMES_SHOWN names. */
function files(kind: string, names: string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  const more = names.length > NAMES_SHOWN ? `, … ${names.length - NAMES_SHOWN} more` : '';
  return `${names.length} ${kind}${names.length === 1 ? '' : 's'} (${shown}${more})`;
}

/** The uncommitted part of a worktree's work, in words; null: none. Removing the worktree loses it. */
export function uncommittedWork(work: WorktreeWork): string | null {
  const parts: string[] = [];
  if (work.operation) parts.push(`${work.operation} under way`);
  if (work.conflicts.length) parts.push(files('file with conflicts', work.conflicts));
  if (work.changed.length) parts.push(files('changed file', work.changed));
  if (work.untracked.length) parts.push(files('untracked file', work.untracked));
  return parts.length ? parts.join(', ') : null;
}

/** The commits only the worktree's branch holds, in words; null: none. The branch keeps them. */
export function unmergedWork(work: WorktreeWork, branch: string): string | null {
  const n = work.unmergedCommits;
  if (n === 0) return null;
  return `${n} commit${n === 1 ? '' : 's'} on ${branch} that no other branch holds`;
}
