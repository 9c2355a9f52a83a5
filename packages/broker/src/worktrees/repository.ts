import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import { HandlerError } from '../errors.js';
import { gitMessage, gitOk, runGit, type GitOptions } from './git.js';

/** What clippy needs to know of the repository a folder is in. */
export interface Repository {
  /** The top of the working tree the folder is in. */
  top: string;
  /** The folder, relative to `top` (`''` at the top; `/`-separated, ending in `/` otherwise). */
  prefix: string;
  /** The git directory every worktree of the repository shares. */
  commonDir: string;
  objectFormat: 'sha1' | 'sha256';
}

/** A commit and the ref it was named by (null: a commit hash or a detached HEAD). */
export interface ResolvedBase {
  commit: string;
  ref: string | null;
}

/**
 * Reads the repository holding `cwd` and the commit `base` names (default HEAD), with the full
 * ref behind it when it is one: one git process when all is well. Clear errors outside a
 * repository, in a bare one, inside a `.git` folder, with no commit yet, or a bad base.
 */
export async function openRepository(
  cwd: string,
  base: string | undefined,
  env: Record<string, string>,
): Promise<{ repo: Repository; base: ResolvedBase }> {
  const name = base ?? 'HEAD';
  // rev-parse of git before 2.43 has no --end-of-options: nothing that looks like an option.
  if (name.startsWith('-')) {
    throw new HandlerError('invalid_argument', `--base '${name}' is not a commit, branch or tag`);
  }
  const opts: GitOptions = { cwd, env };
  const facts = [
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--git-common-dir',
    '--show-object-format',
    '--show-prefix',
  ];
  // `--` after them: the base is a revision, whatever files are named like it.
  const r = await runGit([...facts, `${name}^{commit}`, '--symbolic-full-name', name, '--'], opts);
  if (r.code === 0) {
    const [top, commonDir, format, prefix, commit, ref = ''] = r.stdout
      .toString('utf8')
      .split('\n');
    return {
      repo: {
        top: top!,
        commonDir: commonDir!,
        objectFormat: format === 'sha256' ? 'sha256' : 'sha1',
        prefix: prefix!,
      },
      base: { commit: commit!, ref: ref.startsWith('refs/') ? ref : null },
    };
  }
  // Why not: the base, or no repository at all (outside one, a bare one, inside a git directory).
  const plain = await runGit(facts, opts);
  if (plain.code === 0) {
    const top = plain.stdout.toString('utf8').split('\n')[0]!;
    throw new HandlerError(
      'invalid_argument',
      base === undefined
        ? `the repository at '${top}' has no commit yet: a worktree branches from one (commit first)`
        : `--base '${name}' names no commit in the repository at '${top}'`,
    );
  }
  const probe = await runGit(['rev-parse', '--is-bare-repository', '--is-inside-work-tree'], opts);
  if (probe.code !== 0) {
    if (/not a git repository/u.test(probe.stderr)) {
      throw new HandlerError(
        'not_a_git_repository',
        `'${cwd}' is not in a git repository: a worktree branches from one (git init, or --cwd into a clone)`,
      );
    }
    throw new HandlerError('git_failed', `git cannot read '${cwd}': ${gitMessage(probe)}`);
  }
  const [bare, inside] = probe.stdout.toString('utf8').split('\n');
  if (bare === 'true') {
    throw new HandlerError(
      'bare_repository',
      `'${cwd}' is a bare repository: it has no working tree to branch from (run clippy new --worktree in one of its worktrees, or in a clone)`,
    );
  }
  if (inside !== 'true') {
    throw new HandlerError(
      'not_a_git_repository',
      `'${cwd}' is inside a git directory, not in a working tree`,
    );
  }
  throw new HandlerError('git_failed', `git cannot read '${cwd}': ${gitMessage(plain)}`);
}

/** The full names of the branches under `refs/heads/clippy` (and whether `clippy` itself is one). */
export async function clippyBranches(
  repo: Repository,
  env: Record<string, string>,
): Promise<Set<string>> {
  const out = await gitOk(
    ['for-each-ref', '--format=%(refname)', 'refs/heads/clippy'],
    { cwd: repo.top, env },
    'listing branches',
  );
  return new Set(out.split('\n').filter(Boolean));
}

/** A worktree git knows of, from `git worktree list --porcelain`. */
export interface ListedWorktree {
  path: string;
  branch: string | null;
  locked: string | null;
  prunable: boolean;
}

/** The worktrees of the repository `cwd` is in (or whose git directory it is). */
export async function listWorktrees(
  cwd: string,
  env: Record<string, string>,
): Promise<ListedWorktree[]> {
  const out = await gitOk(
    ['worktree', 'list', '--porcelain', '-z'],
    { cwd, env },
    'listing worktrees',
  );
  const list: ListedWorktree[] = [];
  let current: ListedWorktree | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      current = null;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      current = { path: value, branch: null, locked: null, prunable: false };
      list.push(current);
    } else if (current && key === 'branch') current.branch = value;
    else if (current && key === 'locked') current.locked = value;
    else if (current && key === 'prunable') current.prunable = true;
  }
  return list;
}

/** `$XDG_STATE_HOME/clippy/worktrees` (default `~/.local/state/clippy/worktrees`). */
export function defaultWorktreesDir(env: Record<string, string | undefined>): string {
  const state = env.XDG_STATE_HOME || path.join(env.HOME || homedir(), '.local', 'state');
  return path.join(state, 'clippy', 'worktrees');
}

/**
 * Where worktrees of this repository go: `<dir>/<repository>-<id>/`, `<id>` telling apart two
 * repositories of one name. `configured` (config.json `worktreeDir`) may be absolute, start with
 * `~/`, or be relative to the top of the working tree clippy was started in.
 */
export function repositoryWorktreesDir(
  repo: Repository,
  configured: string | null,
  env: Record<string, string | undefined>,
): string {
  let dir = defaultWorktreesDir(env);
  if (configured) {
    if (configured === '~' || configured.startsWith('~/'))
      dir = path.join(env.HOME || homedir(), configured.slice(1));
    else dir = path.resolve(repo.top, configured);
  }
  const common = repo.commonDir.replace(/\/+$/u, '');
  const repoName =
    path.basename(common) === '.git'
      ? path.basename(path.dirname(common))
      : path.basename(common).replace(/\.git$/u, '') || 'repository';
  const id = createHash('sha256').update(common).digest('hex').slice(0, 8);
  return path.join(dir, `${repoName}-${id}`);
}
