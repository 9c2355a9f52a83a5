import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { HandlerError } from '../errors.js';
import { GIT_WORKTREE_TIMEOUT_MS, gitMessage, runGit, type GitResult } from './git.js';
import {
  clippyBranches,
  listWorktrees,
  openRepository,
  repositoryWorktreesDir,
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

/** A branch named plain `clippy` leaves git no room for `clippy/NAME`. */
function clippyBranchError(): HandlerError {
  return new HandlerError(
    'branch_exists',
    `the repository has a branch named 'clippy': git cannot keep branches clippy/NAME beside it (rename it: git branch -m clippy OTHER)`,
  );
}

/** The branch exists: where it is checked out, in what state, and what to do. */
async function takenBranch(
  branch: string,
  holder: ListedWorktree | undefined,
  env: Record<string, string>,
): Promise<HandlerError> {
  const state = holder
    ? `: ${await describeTaken(holder, holder.path, env, { branch })}`
    : ' (in no worktree)';
  return new HandlerError(
    'branch_exists',
    `branch ${branch} exists already${state}. Pick another name, start a session there with clippy new --cwd PATH, or delete the branch yourself (clippy never does)`,
  );
}

/** Why `git worktree add -b` failed, in clippy's words where it is a taken name. */
async function addFailed(
  added: GitResult,
  top: string,
  branch: string,
  env: Record<string, string>,
): Promise<HandlerError> {
  const words = gitMessage(added);
  if (/'refs\/heads\/clippy' exists/u.test(words)) return clippyBranchError();
  if (/a branch named .* already exists/u.test(words)) {
    const listed = await listWorktrees(top, env).catch(() => []);
    return takenBranch(
      branch,
      listed.find((w) => w.branch === `refs/heads/${branch}`),
      env,
    );
  }
  if (/already exists/u.test(words)) {
    return new HandlerError('worktree_exists', `git worktree add: ${words}`);
  }
  return new HandlerError('git_failed', `git worktree add failed: ${words}`);
}

/**
 * Creates the worktree of a new session: a branch `clippy/NAME` from the base (default HEAD of
 * the repository `cwd` is in) checked out in `<dir>/<repository>-<id>/NAME`, outside the
 * working tree so that tools scanning it never see it. Clear errors outside a repository, in a
 * bare one, and when the branch or the folder is taken.
 */
export async function createWorktree(req: CreateWorktree): Promise<CreatedWorktree> {
  const { env } = req;
  const { repo, base } = await openRepository(req.cwd, req.base, env);
  const dir = repositoryWorktreesDir(repo, req.configuredDir, req.daemonEnv);
  const given = req.name ?? req.sessionName;
  let name: string;
  if (given !== undefined) {
    // A given name: git itself says when its branch is taken (then the why is looked up).
    checkName(given, req.name !== undefined ? 'worktree name' : 'session name');
    name = given;
  } else {
    // A name made here must be free: the branches under clippy/ are listed first.
    const branches = await clippyBranches(repo, env);
    if (branches.has('refs/heads/clippy')) throw clippyBranchError();
    const stem = nameFromCommand(req.command);
    const free = (n: string) =>
      !branches.has(`refs/heads/${BRANCH_PREFIX}${n}`) &&
      !existsSync(path.join(dir, n)) &&
      req.sessionNameFree(n);
    name = stem;
    for (let n = 2; !free(name); n++) name = `${stem}-${n}`;
  }
  const branch = `${BRANCH_PREFIX}${name}`;
  const where = path.join(dir, name);
  if (existsSync(where)) {
    const listed = (await listWorktrees(repo.top, env)).find((w) => w.path === where);
    // An earlier worktree of this name, on its branch: the branch is what is taken.
    if (listed?.branch === `refs/heads/${branch}`) throw await takenBranch(branch, listed, env);
    const state = await describeTaken(listed, where, env, { branch });
    throw new HandlerError(
      'worktree_exists',
      `the worktree folder ${where} exists already: ${state}. Pick another name`,
    );
  }

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
  if (added.code !== 0) throw await addFailed(added, repo.top, branch, env);

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
