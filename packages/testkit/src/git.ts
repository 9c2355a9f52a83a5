import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Real git for tests (no mocks): an identity to commit with, and nothing of the machine's or
 * the user's git configuration (a global `diff.noprefix` or hooks path must not change what a
 * test sees). Local submodules need `protocol.file.allow` since git 2.38.
 */
export const GIT_TEST_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'protocol.file.allow',
  GIT_CONFIG_VALUE_0: 'always',
};

/** Runs git in `cwd` (test env) and returns its stdout; throws with its stderr on failure. */
export function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, ...GIT_TEST_ENV },
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** Writes files under `root` (folders made as needed). */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/**
 * A repository with history at `dir` (created): branch `main`, two commits (the second changes
 * `src/app.ts` and adds `docs/guide.md`), and the files given committed in the first.
 */
export function makeRepo(dir: string, files: Record<string, string | Buffer> = {}): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, ['init', '--quiet', '--initial-branch=main']);
  writeFiles(dir, {
    'README.md': '# demo\n\nA repository for tests.\n',
    'src/app.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n',
    'src/util.ts': 'export const one = 1;\nexport const two = 2;\n',
    ...files,
  });
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '-m', 'first']);
  writeFiles(dir, {
    'src/app.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
    'docs/guide.md': 'How to add numbers.\n',
  });
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '-m', 'second']);
  return dir;
}

/** What git itself says the change is: everything staged in a copy of the index, against `base`. */
export function gitOwnDiff(worktree: string, base: string, args: string[] = []): string {
  const index = path.join(fs.mkdtempSync(path.join(path.dirname(worktree), '.index-')), 'index');
  const gitIndex = git(worktree, [
    'rev-parse',
    '--path-format=absolute',
    '--git-path',
    'index',
  ]).trim();
  fs.copyFileSync(gitIndex, index);
  // The copy keeps the index's own time: git trusts an entry whose file is older than its index
  // ("racy git"), and a file rewritten at the same size within the second the worktree's index
  // was written (a fast machine) would otherwise be taken as unchanged.
  const { atime, mtime } = fs.statSync(gitIndex);
  fs.utimesSync(index, atime, mtime);
  try {
    const env = { ...process.env, ...GIT_TEST_ENV, GIT_INDEX_FILE: index };
    const run = (a: string[]) =>
      execFileSync('git', a, {
        cwd: worktree,
        env,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
    run(['add', '-A']);
    // Names as they are (clippy's diff does not quote non-ASCII characters).
    return run(['-c', 'core.quotePath=false', 'diff', '--cached', '--find-renames', base, ...args]);
  } finally {
    fs.rmSync(path.dirname(index), { recursive: true, force: true });
  }
}
