import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { HandlerError } from '../errors.js';
import { GIT_WORKTREE_TIMEOUT_MS, gitMessage, runGit } from './git.js';
import {
  clippyBranches,
  listWorktrees,
  openRepository,
  repositoryWorktreesDir,
  resolveBase,
  type ListedWorktree,
} from './repository.js';
import type { WorktreeRecord } from './session-worktree.js';
import { inspectWork, uncommittedWork } from './work.js';

/** The prefix of every branch clippy makes: `clippy/NAME`. */
export const BRANCH_PREFIX = 'clippy/';

/** A worktree name (WorktreeNameSchema's rule, checked again for names taken from elsewhere). */
const WORKTREE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/u;
/** Longest worktree name (as the schema says). */
const MAX_NAME_LENGTH = 64;

export interface CreateWorktree {
  /** The folder the user is in: the repository is the one holding it. */
  cwd: string;
  /** `--worktree NAME`; else the session's name; else one made from the command. */
  name: string | undefined;
  sessionName: string | undefined;
  command: string;
  base: string | undefined;
  /** config.json `worktreeDir` (null: the default). */
  configuredDir: string | null;
  /** Whether a session could take this name (a name made here must be free for one). */
  sessionNameFree(name: string): boolean;
  env: Record<string, string>;
  /** The daemon's environment, for `$XDG_STATE_HOME`. */
  daemonEnv: Record<string, string | undefined>;
}

export interface CreatedWorktree {
  record: WorktreeRecord;
  /** The worktree's name (the branch is `clippy/NAME`). */
  name: string;
  /** Where the command starts: the folder of the worktree that `cwd` was of its repository. */
  cwd: string;
  /** What the user should know (changes left behind, submodules not checked out). */
  notes: string[];
}

/** `claude` from `/usr/bin/claude`, `my_agent` from `my agent.sh`: a name git and folders take. */
function nameFromCommand(command: string): string {
  const base = path
    .basename(command)
    .replace(/\.[A-Za-z0-9]+$/u, '')
    .replace(/[^A-Za-z0-9_-]+/gu, '-')
    .replace(/^[-_]+|-+$/gu, '')
    .slice(0, MAX_NAME_LENGTH - 4);
  return base || 'session';
}

function checkName(name: string, what: string): void {
  if (name.length > MAX_NAME_LENGTH || !WORKTREE_NAME.test(name) || name.endsWith('.lock')) {
    throw new HandlerError(
      'invalid_argument',
      `${what} '${name}' cannot name a branch and a folder: use letters, digits, "_", "-" and single "." inside (give --worktree NAME)`,
    );
  }
}

/** Why a worktree's folder (or branch) is taken, in words: where it is and in what state. */
async function describeTaken(
  listed: ListedWorktree | undefined,
  where: string,
  env: Record<string, string>,
  record: Pick<WorktreeRecord, 'branch'>,
): Promise<string> {
  if (!listed) return `'${where}' exists and is no worktree of this repository`;
  if (listed.prunable)
    return `its worktree ${listed.path} is gone but still registered (git worktree prune forgets it)`;
  if (listed.locked !== null) {
    return `its worktree ${listed.path} is locked${listed.locked ? ` (${listed.locked})` : ''}`;
  }
  try {
    const work = await inspectWork({ path: listed.path, branch: record.branch }, null, env);
    const dirty = uncommittedWork(work);
    return dirty
      ? `its worktree ${listed.path} holds uncommitted work: ${dirty}`
      : `its worktree ${listed.path} is clean`;
  } catch {
    return `its worktree is ${listed.path}`;
  }
}

/**
 * Creates the worktree of a new session: a branch `clippy/NAME` from the base (default HEAD of
 * the repository `cwd` is in) checked out in `<dir>/<repository>-<id>/NAME`, outside the
 * working tree so that tools scanning it never see it. Clear errors outside a repository, in a
 * bare one, and when the branch or the folder is taken.
 */
export async function createWorktree(req: CreateWorktree): Promise<CreatedWorktree> {
  const { env } = req;
  const repo = await openRepository(req.cwd, env);
  const [base, branches, listed] = await Promise.all([
    resolveBase(repo, req.base, env),
    clippyBranches(repo, env),
    listWorktrees(repo.top, env),
  ]);
  if (branches.has('refs/heads/clippy')) {
    throw new HandlerError(
      'branch_exists',
      `the repository has a branch named 'clippy': git cannot keep branches clippy/NAME beside it (rename it: git branch -m clippy OTHER)`,
    );
  }
  const dir = repositoryWorktreesDir(repo, req.configuredDir, req.daemonEnv);
  const free = (n: string) =>
    !branches.has(`refs/heads/${BRANCH_PREFIX}${n}`) && !existsSync(path.join(dir, n));

  let name: string;
  const given = req.name ?? req.sessionName;
  if (given !== undefined) {
    checkName(given, req.name !== undefined ? 'worktree name' : 'session name');
    name = given;
    const branch = `${BRANCH_PREFIX}${name}`;
    const where = path.join(dir, name);
    if (branches.has(`refs/heads/${branch}`)) {
      const holder = listed.find((w) => w.branch === `refs/heads/${branch}`);
      const state = holder
        ? `: ${await describeTaken(holder, holder.path, env, { branch })}`
        : ' (in no worktree)';
      throw new HandlerError(
        'branch_exists',
        `branch ${branch} exists already${state}. Pick another name, start a session there with clippy new --cwd PATH, or delete the branch yourself (clippy never does)`,
      );
    }
    if (existsSync(where)) {
      const state = await describeTaken(
        listed.find((w) => w.path === where),
        where,
        env,
        { branch },
      );
      throw new HandlerError(
        'worktree_exists',
        `the worktree folder ${where} exists already: ${state}. Pick another name`,
      );
    }
  } else {
    const stem = nameFromCommand(req.command);
    name = stem;
    for (let n = 2; !free(name) || !req.sessionNameFree(name); n++) name = `${stem}-${n}`;
  }

  const branch = `${BRANCH_PREFIX}${name}`;
  const where = path.join(dir, name);
  const [added, status] = await Promise.all([
    runGit(['worktree', 'add', '--quiet', '-b', branch, where, base.commit], {
      cwd: repo.top,
      env,
      timeoutMs: GIT_WORKTREE_TIMEOUT_MS,
    }),
    // Changes in the user's tree do not go with the new branch: say so (only when it starts
    // from HEAD: another base is a choice already made).
    req.base === undefined
      ? runGit(['status', '--porcelain', '-z', '--untracked-files=no'], { cwd: repo.top, env })
      : null,
  ]);
  if (added.code !== 0) {
    const words = gitMessage(added);
    if (/already exists/u.test(words)) {
      throw new HandlerError(
        /branch/u.test(words) ? 'branch_exists' : 'worktree_exists',
        `git worktree add: ${words}`,
      );
    }
    throw new HandlerError('git_failed', `git worktree add failed: ${words}`);
  }

  const notes: string[] = [];
  const short = base.commit.slice(0, 12);
  const changes =
    status?.code === 0 ? status.stdout.toString('utf8').split('\0').filter(Boolean).length : 0;
  if (changes > 0) {
    notes.push(
      `${changes} uncommitted change${changes === 1 ? '' : 's'} in ${repo.top} stay${changes === 1 ? 's' : ''} there: the worktree starts from ${short} (commit first to take ${changes === 1 ? 'it' : 'them'} along)`,
    );
  }
  if (existsSync(path.join(where, '.gitmodules'))) {
    notes.push(
      `the repository has submodules: they are not checked out in the worktree (git -C ${where} submodule update --init)`,
    );
  }
  let cwd = where;
  if (repo.prefix) {
    const inside = path.join(where, repo.prefix).replace(/\/+$/u, '');
    try {
      if (statSync(inside).isDirectory()) cwd = inside;
    } catch {
      // Not in the base commit (a folder of untracked files): the top of the worktree.
    }
  }
  return {
    record: {
      path: where,
      branch,
      base: base.commit,
      base_ref: base.ref,
      repo: repo.commonDir,
      object_format: repo.objectFormat,
    },
    name,
    cwd,
    notes,
  };
}

/**
 * Undoes a worktree made a moment ago for a session that could not start: the folder goes, and
 * the branch too while it still points where it was made (nothing was committed on it).
 */
export async function discardWorktree(
  record: WorktreeRecord,
  env: Record<string, string>,
): Promise<void> {
  const opts = { cwd: record.repo, env, timeoutMs: GIT_WORKTREE_TIMEOUT_MS };
  await runGit(['worktree', 'remove', '--force', record.path], opts);
  await runGit(['update-ref', '-d', `refs/heads/${record.branch}`, record.base], opts);
}
