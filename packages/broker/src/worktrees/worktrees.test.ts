import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffPatchLines, diffStatLines } from '@clippy/system/git';
import { GIT_TEST_ENV, git, gitOwnDiff, makeRepo, writeFiles } from '@clippy/testkit/git';
import { RepoTemplate } from '@clippy/testkit/repo-template';
import { HandlerError } from '../errors.js';
import { createWorktree, type CreateWorktree } from './create-worktree.js';
import { worktreeDiff, DIFF_PATCH_MAX_BYTES } from './diff.js';
import { gitEnvironment } from './git.js';
import type { WorktreeRecord } from './session-worktree.js';
import { removeWorktree } from './remove-worktree.js';
import { inspectWork, uncommittedWork, unmergedWork } from './work.js';

// Worktrees with real git (no mocks): repositories with history made in a temp dir, worktrees
// made, changed and read as a session's would be.

let root: string;
let n = 0;
const env = gitEnvironment({ ...process.env, ...GIT_TEST_ENV });
let state: string;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-worktrees-')));
  state = path.join(root, 'state');
  template = new RepoTemplate(root);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let template: RepoTemplate;

/** A fresh repository with history (see testkit's makeRepo): a copy of one made once. */
function repo(files: Record<string, string | Buffer> = {}): string {
  const dir = path.join(root, `repo${++n}`);
  return Object.keys(files).length > 0 ? makeRepo(dir, files) : template.copy(dir);
}

function create(req: Partial<CreateWorktree> & { cwd: string }) {
  return createWorktree({
    name: undefined,
    sessionName: undefined,
    command: '/usr/bin/claude',
    base: undefined,
    configuredDir: null,
    sessionNameFree: () => true,
    env,
    daemonEnv: { XDG_STATE_HOME: state, HOME: root },
    ...req,
  });
}

/** The error a promise fails with (a HandlerError: its code and message). */
async function failure(p: Promise<unknown>): Promise<HandlerError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HandlerError);
    return err as HandlerError;
  }
  throw new Error('it did not fail');
}

const patchOf = async (record: WorktreeRecord) =>
  `${diffPatchLines((await worktreeDiff(record, { detail: 'patch' }, env)).files).join('\n')}\n`;

describe('clippy new --worktree: making the worktree', () => {
  it('branches clippy/NAME from HEAD in a folder outside the working tree, starting where the user was', async () => {
    const r = repo();
    const head = git(r, ['rev-parse', 'HEAD']).trim();
    const statusBefore = git(r, ['status', '--porcelain']);
    const made = await create({ cwd: path.join(r, 'src'), name: 'fix' });
    expect(made.name).toBe('fix');
    expect(made.record).toMatchObject({
      branch: 'clippy/fix',
      base: head,
      base_ref: 'refs/heads/main',
      repo: path.join(r, '.git'),
      object_format: 'sha1',
    });
    expect(made.record.path).toMatch(
      new RegExp(`^${state}/clippy/worktrees/repo${n}-[0-9a-f]{8}/fix$`, 'u'),
    );
    expect(made.record.path.startsWith(`${r}/`)).toBe(false);
    expect(made.cwd).toBe(path.join(made.record.path, 'src'));
    expect(git(made.record.path, ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(git(made.record.path, ['branch', '--show-current']).trim()).toBe('clippy/fix');
    expect(fs.readFileSync(path.join(made.cwd, 'util.ts'), 'utf8')).toContain('two = 2');
    // The user's own tree is as it was, and nothing to tell.
    expect(git(r, ['status', '--porcelain'])).toBe(statusBefore);
    expect(made.notes).toEqual([]);
  });

  it('--base: a commit (no ref behind it) or a branch; a name is made from the command when none is given', async () => {
    const r = repo();
    const first = git(r, ['rev-parse', 'HEAD~1']).trim();
    const a = await create({ cwd: r, base: first });
    expect(a.name).toBe('claude');
    expect(a.record).toMatchObject({ branch: 'clippy/claude', base: first, base_ref: null });
    expect(fs.existsSync(path.join(a.record.path, 'docs/guide.md'))).toBe(false);
    // A file named like the branch does not make `main` ambiguous.
    writeFiles(r, { main: 'a file named like the branch\n' });
    const b = await create({ cwd: r, base: 'main' });
    expect(b.name).toBe('claude-2');
    expect(b.record.base_ref).toBe('refs/heads/main');
    // A name a session already has is passed over too.
    const c = await create({ cwd: r, sessionNameFree: (name) => name !== 'claude-3' });
    expect(c.name).toBe('claude-4');
    // A session's own name is the worktree's when given.
    const d = await create({ cwd: r, sessionName: 'reviewer' });
    expect(d.record.branch).toBe('clippy/reviewer');
  });

  it('says what stays behind: uncommitted changes, submodules not checked out', async () => {
    const lib = repo();
    const r = repo();
    git(r, ['submodule', '--quiet', 'add', lib, 'vendor/lib']);
    git(r, ['commit', '--quiet', '-m', 'add a submodule']);
    writeFiles(r, { 'src/app.ts': 'changed\n', 'scratch.txt': 'untracked, not counted\n' });
    const made = await create({ cwd: r, name: 'sub' });
    expect(made.notes).toEqual([
      `1 uncommitted change in ${r} stays there: the worktree starts from ${git(r, ['rev-parse', 'HEAD']).trim().slice(0, 12)} (commit first to take it along)`,
      `the repository has submodules: they are not checked out in the worktree (git -C ${made.record.path} submodule update --init)`,
    ]);
    // The submodule's folder is empty and no change: the diff is empty.
    expect(fs.readdirSync(path.join(made.record.path, 'vendor/lib'))).toEqual([]);
    const d = await worktreeDiff(made.record, { detail: 'patch' }, env);
    expect(d.files).toEqual([]);
    // Checked out and moved on inside the worktree, the submodule's new commit is the change.
    git(made.record.path, ['submodule', '--quiet', 'update', '--init']);
    const sub = path.join(made.record.path, 'vendor/lib');
    const before = git(sub, ['rev-parse', 'HEAD']).trim();
    writeFiles(sub, { 'NEW.md': 'in the submodule\n' });
    git(sub, ['add', '-A']);
    git(sub, ['commit', '--quiet', '-m', 'sub change']);
    const after = git(sub, ['rev-parse', 'HEAD']).trim();
    const changed = await worktreeDiff(made.record, { detail: 'patch' }, env);
    expect(changed.files).toHaveLength(1);
    expect(changed.files[0]).toMatchObject({
      path: 'vendor/lib',
      status: 'modified',
      added: 1,
      removed: 1,
    });
    expect(changed.files[0]!.hunks![0]!.lines).toEqual([
      `-Subproject commit ${before}`,
      `+Subproject commit ${after}`,
    ]);
    // A checked-out submodule keeps the worktree (its own commits would go with it); --force not.
    git(made.record.path, ['commit', '--quiet', '-am', 'move the submodule on']);
    git(r, ['merge', '--quiet', '--ff-only', 'clippy/sub']);
    const kept = await failure(removeWorktree(made.record, 'sub', false, env));
    expect(kept.code).toBe('worktree_has_changes');
    expect(kept.message).toMatch(
      /: a checked-out submodule, whose own commits and changes would go with it\./u,
    );
    expect(fs.existsSync(made.record.path)).toBe(true);
    await removeWorktree(made.record, 'sub', true, env);
    expect(fs.existsSync(made.record.path)).toBe(false);
  });

  it('refuses clearly: outside a repository, a bare one, a .git folder, no commit, a bad --base or name', async () => {
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain);
    const outside = await failure(create({ cwd: plain }));
    expect(outside.code).toBe('not_a_git_repository');
    expect(outside.message).toBe(
      `'${plain}' is not in a git repository: a worktree branches from one (git init, or --cwd into a clone)`,
    );
    const bare = path.join(root, 'bare.git');
    git(root, ['init', '--quiet', '--bare', bare]);
    const b = await failure(create({ cwd: bare }));
    expect(b.code).toBe('bare_repository');
    expect(b.message).toMatch(/is a bare repository: it has no working tree to branch from/u);
    const r = repo();
    expect((await failure(create({ cwd: path.join(r, '.git') }))).code).toBe(
      'not_a_git_repository',
    );
    const empty = path.join(root, 'empty');
    git(root, ['init', '--quiet', empty]);
    expect((await failure(create({ cwd: empty }))).message).toMatch(/has no commit yet/u);
    expect((await failure(create({ cwd: r, base: 'no-such-branch' }))).message).toBe(
      `--base 'no-such-branch' names no commit in the repository at '${r}'`,
    );
    expect((await failure(create({ cwd: r, base: '--output=x' }))).code).toBe('invalid_argument');
    expect((await failure(create({ cwd: r, sessionName: 'a/b' }))).message).toMatch(
      /^session name 'a\/b' cannot name a branch and a folder/u,
    );
  });

  it('refuses a taken branch, saying where it is checked out and in what state', async () => {
    const r = repo();
    const clean = await create({ cwd: r, name: 'taken' });
    let e = await failure(create({ cwd: r, name: 'taken' }));
    expect(e.code).toBe('branch_exists');
    expect(e.message).toBe(
      `branch clippy/taken exists already: its worktree ${clean.record.path} is clean. Pick another name, start a session there with clippy new --cwd PATH, or delete the branch yourself (clippy never does)`,
    );
    writeFiles(clean.record.path, { 'src/app.ts': 'edited\n', 'new.txt': 'new\n' });
    e = await failure(create({ cwd: r, name: 'taken' }));
    expect(e.message).toMatch(
      /its worktree \S+ holds uncommitted work: 1 changed file \(src\/app\.ts\), 1 untracked file \(new\.txt\)\./u,
    );
    git(r, ['worktree', 'lock', '--reason', 'on a USB disk', clean.record.path]);
    e = await failure(create({ cwd: r, name: 'taken' }));
    expect(e.message).toMatch(/its worktree \S+ is locked \(on a USB disk\)\./u);
    git(r, ['branch', 'clippy/plain']);
    expect((await failure(create({ cwd: r, name: 'plain' }))).message).toMatch(
      /^branch clippy\/plain exists already \(in no worktree\)/u,
    );
    // A folder in the way (not a worktree) is refused too.
    const made = await create({ cwd: r, name: 'probe' });
    const folder = path.join(path.dirname(made.record.path), 'inthe-way');
    fs.mkdirSync(folder);
    const w = await failure(create({ cwd: r, name: 'inthe-way' }));
    expect(w.code).toBe('worktree_exists');
    expect(w.message).toBe(
      `the worktree folder ${folder} exists already: '${folder}' exists and is no worktree of this repository. Pick another name`,
    );
    // A branch named `clippy` leaves no room for clippy/NAME.
    const other = repo();
    git(other, ['branch', 'clippy']);
    expect((await failure(create({ cwd: other, name: 'x' }))).message).toMatch(
      /has a branch named 'clippy'/u,
    );
  });

  it('worktreeDir: relative to the working tree, or under ~', async () => {
    const r = repo();
    const made = await create({ cwd: path.join(r, 'src'), name: 'side', configuredDir: '../wt' });
    expect(made.record.path).toMatch(new RegExp(`^${root}/wt/repo${n}-[0-9a-f]{8}/side$`, 'u'));
    const home = await create({ cwd: r, name: 'home', configuredDir: '~/trees' });
    expect(home.record.path.startsWith(`${root}/trees/repo${n}-`)).toBe(true);
  });
});

describe('a session’s diff', () => {
  it('is empty for a fresh worktree', async () => {
    const made = await create({ cwd: repo(), name: 'fresh' });
    const d = await worktreeDiff(made.record, { detail: 'patch' }, env);
    expect(d).toEqual({
      base: made.record.base,
      files: [],
      totals: { files: 0, added: 0, removed: 0 },
      truncated: false,
    });
  });

  it('holds commits, staged, unstaged and new files (moved, binary, executable, links, odd names) exactly as git shows them once staged', async () => {
    const r = repo({
      'old.txt': 'to be deleted\n',
      'moved.txt': 'this file moves\nunchanged\n',
      'renamed.txt': 'a\nb\nc\nd\ne\nf\ng\nh\n',
      'logo.bin': Buffer.from([0, 1, 2, 3, 255]),
      'link-later': 'a file that becomes a link\n',
    });
    const made = await create({ cwd: r, name: 'work' });
    const w = made.record.path;
    // Committed on the branch.
    writeFiles(w, {
      'src/util.ts': 'export const one = 1;\nexport const two = 2;\nexport const three = 3;\n',
    });
    git(w, ['commit', '--quiet', '-am', 'three']);
    // Staged, then changed again.
    writeFiles(w, { 'README.md': '# demo\n\nStaged line.\n' });
    git(w, ['add', 'README.md']);
    writeFiles(w, { 'README.md': '# demo\n\nStaged line, then edited.\n' });
    // Renamed with git (and edited), moved without it, deleted, binary changed.
    git(w, ['mv', 'renamed.txt', 'src/renamed.txt']);
    writeFiles(w, { 'src/renamed.txt': 'a\nb\nc\nd\ne\nf\ng\nH\n' });
    fs.renameSync(path.join(w, 'moved.txt'), path.join(w, 'docs/moved.txt'));
    fs.rmSync(path.join(w, 'old.txt'));
    writeFiles(w, { 'logo.bin': Buffer.from([0, 1, 2, 3, 254, 9]) });
    // A file become a link; new: text, no final newline, empty, binary, executable, a link, odd names.
    fs.rmSync(path.join(w, 'link-later'));
    fs.symlinkSync('README.md', path.join(w, 'link-later'));
    writeFiles(w, {
      'src/new.ts': 'export const n = 1;\nexport const m = 2;\n',
      'no-newline.txt': 'last line',
      'empty.txt': '',
      'data.bin': Buffer.from([7, 0, 7]),
      'run.sh': '#!/bin/sh\necho hi\n',
      'with space "quoted".txt': 'odd name\n',
      'ünïcødé.txt': 'accents\n',
    });
    fs.chmodSync(path.join(w, 'run.sh'), 0o755);
    fs.symlinkSync('src/new.ts', path.join(w, 'new-link'));
    const statusBefore = git(w, ['status', '--porcelain']);
    const indexFile = git(w, ['rev-parse', '--path-format=absolute', '--git-path', 'index']).trim();
    const index = fs.readFileSync(indexFile);

    expect(await patchOf(made.record)).toBe(gitOwnDiff(w, made.record.base));
    const d = await worktreeDiff(made.record, { detail: 'files' }, env);
    const by = (p: string) => d.files.find((f) => f.path === p);
    expect(by('docs/moved.txt')).toMatchObject({
      status: 'renamed',
      old_path: 'moved.txt',
      untracked: true,
    });
    expect(by('src/renamed.txt')).toMatchObject({
      status: 'renamed',
      old_path: 'renamed.txt',
      added: 1,
      removed: 1,
    });
    expect(by('old.txt')).toMatchObject({ status: 'deleted', added: 0, removed: 1 });
    expect(by('logo.bin')).toMatchObject({ status: 'modified', binary: true, added: null });
    expect(by('data.bin')).toMatchObject({ status: 'added', binary: true, untracked: true });
    expect(by('src/util.ts')).toMatchObject({ status: 'modified', added: 1, removed: 0 });
    expect(by('link-later')).toMatchObject({ status: 'type_changed' });
    expect(d.files.every((f) => f.header === undefined && f.hunks === undefined)).toBe(true);
    // The counts are git's own (--numstat of everything staged).
    const fields = gitOwnDiff(w, made.record.base, ['--numstat', '-z']).split('\0');
    const counts: string[] = [];
    for (let i = 0; i < fields.length - 1; i++) {
      const [a, b, p] = fields[i]!.split('\t');
      const where = p === '' ? `${fields[++i]} => ${fields[++i]}` : p;
      counts.push(`${where} ${a} ${b}`);
    }
    const ours = d.files.map(
      (f) =>
        `${f.old_path ? `${f.old_path} => ` : ''}${f.path} ${f.added ?? '-'} ${f.removed ?? '-'}`,
    );
    expect(ours.sort()).toEqual(counts.sort());
    expect(diffStatLines(d.files, d.totals).at(-1)).toBe(
      ` ${d.files.length} files changed, ${d.totals.added} insertions(+), ${d.totals.removed} deletions(-)`,
    );
    // Reading changed nothing: the user's status and index are as they were.
    expect(git(w, ['status', '--porcelain'])).toBe(statusBefore);
    expect(fs.readFileSync(indexFile)).toEqual(index);
  });

  it('is taken against the merge base: what main did since is not the session’s change', async () => {
    const r = repo();
    const made = await create({ cwd: r, name: 'mb' });
    writeFiles(made.record.path, { 'src/mine.ts': 'mine\n' });
    writeFiles(r, { 'src/theirs.ts': 'theirs\n' });
    git(r, ['add', '-A']);
    git(r, ['commit', '--quiet', '-m', 'main moves on']);
    git(made.record.path, ['merge', '--quiet', '--no-edit', 'main']);
    const d = await worktreeDiff(made.record, { detail: 'files' }, env);
    expect(d.files.map((f) => f.path)).toEqual(['src/mine.ts']);
    expect(d.base).toBe(git(r, ['rev-parse', 'main']).trim());
    // The ref gone, the commit it started from is the base.
    const gone = { ...made.record, base_ref: 'refs/heads/deleted-since' };
    const d2 = await worktreeDiff(gone, { detail: 'files' }, env);
    expect(d2.base).toBe(made.record.base);
    expect(d2.files.map((f) => f.path)).toEqual(['src/mine.ts', 'src/theirs.ts']);
  });

  it('paths and context narrow it; a patch past 8 MiB keeps its counts but not its lines', async () => {
    const r = repo({ 'big.txt': 'x\n' });
    const made = await create({ cwd: r, name: 'narrow' });
    const w = made.record.path;
    writeFiles(w, {
      'src/app.ts':
        'export function add(a: number, b: number): number {\n  return a + b; // sum\n}\n',
      'src/util.ts': 'export const one = 1;\nexport const two = 2;\nexport const four = 4;\n',
    });
    const one = await worktreeDiff(
      made.record,
      { detail: 'patch', paths: ['src/util.ts'], context: 0 },
      env,
    );
    expect(one.files.map((f) => f.path)).toEqual(['src/util.ts']);
    expect(one.files[0]!.hunks).toEqual([
      {
        header: '@@ -2,0 +3 @@ export const two = 2;',
        old_start: 2,
        old_lines: 0,
        new_start: 3,
        new_lines: 1,
        lines: ['+export const four = 4;'],
      },
    ]);
    const line = `${'y'.repeat(99)}\n`;
    writeFiles(w, { 'big.txt': line.repeat(Math.ceil(DIFF_PATCH_MAX_BYTES / line.length) + 10) });
    const big = await worktreeDiff(made.record, { detail: 'patch' }, env);
    expect(big.truncated).toBe(true);
    const bigFile = big.files.find((f) => f.path === 'big.txt')!;
    expect(bigFile.added).toBeGreaterThan(80_000);
    expect(bigFile.hunks).toBeUndefined();
    // Files before it in the order keep their lines; those after lose theirs.
    expect(big.files.find((f) => f.path === 'src/app.ts')!.hunks).toBeUndefined();
  });
});

describe('work in a worktree (what clippy rm looks at)', () => {
  it('counts uncommitted work, conflicts, an operation under way, and commits no other branch holds', async () => {
    const r = repo();
    const made = await create({ cwd: r, name: 'busy' });
    const w = made.record.path;
    const clean = await inspectWork(made.record, null, env);
    expect(uncommittedWork(clean)).toBeNull();
    expect(unmergedWork(clean, made.record.branch)).toBeNull();

    writeFiles(w, { 'src/app.ts': 'mine\n' });
    git(w, ['commit', '--quiet', '-am', 'on the branch']);
    expect(unmergedWork(await inspectWork(made.record, null, env), made.record.branch)).toBe(
      '1 commit on clippy/busy that no other branch holds',
    );
    // Merged into main: nothing only the branch has.
    git(r, ['merge', '--quiet', '--ff-only', 'clippy/busy']);
    expect((await inspectWork(made.record, null, env)).unmergedCommits).toBe(0);

    writeFiles(r, { 'src/app.ts': 'theirs\n' });
    git(r, ['commit', '--quiet', '-am', 'theirs']);
    writeFiles(w, { 'src/app.ts': 'ours\n', 'notes/a.txt': 'a\n', 'notes/b.txt': 'b\n' });
    git(w, ['commit', '--quiet', '-am', 'ours']);
    expect(() => git(w, ['merge', '--quiet', 'main'])).toThrow();
    const work = await inspectWork(made.record, null, env);
    expect(uncommittedWork(work)).toBe(
      'a merge under way, 1 file with conflicts (src/app.ts), 1 untracked file (notes/)',
    );
  });
});

describe('removing a session’s worktree', () => {
  it('only when nothing would be lost, or with force (saying what went); never a locked one; the branch stays', async () => {
    const r = repo();
    const made = await create({ cwd: r, name: 'rm' });
    const w = made.record.path;
    writeFiles(w, { 'src/app.ts': 'changed\n', 'new.txt': 'new\n' });
    const refused = await failure(removeWorktree(made.record, 'rm', false, env));
    expect(refused.code).toBe('worktree_has_changes');
    expect(refused.message).toBe(
      `session 'rm' has work in its worktree ${w}: uncommitted: 1 changed file (src/app.ts), 1 untracked file (new.txt). Nothing was removed: commit and merge it, or --force removes the worktree anyway (its branch clippy/rm stays, with its commits)`,
    );
    expect(fs.readFileSync(path.join(w, 'new.txt'), 'utf8')).toBe('new\n');

    git(r, ['worktree', 'lock', w]);
    const locked = await failure(removeWorktree(made.record, 'rm', true, env));
    expect(locked.code).toBe('worktree_locked');
    expect(locked.message).toBe(
      `the worktree ${w} is locked: clippy leaves it alone (git worktree unlock ${w} frees it)`,
    );
    git(r, ['worktree', 'unlock', w]);

    git(w, ['add', '-A']);
    git(w, ['commit', '--quiet', '-m', 'the work']);
    writeFiles(w, { 'scratch.txt': 'x\n' });
    expect(await removeWorktree(made.record, 'rm', true, env)).toEqual({
      path: w,
      branch: 'clippy/rm',
      lost: '1 untracked file (scratch.txt)',
    });
    expect(fs.existsSync(w)).toBe(false);
    expect(git(r, ['log', '-1', '--format=%s', 'clippy/rm']).trim()).toBe('the work');
    expect(git(r, ['worktree', 'list', '--porcelain'])).not.toContain(w);

    // Clean and merged: removed without force. Its folder gone by hand: forgotten all the same.
    const clean = await create({ cwd: r, name: 'clean' });
    expect(await removeWorktree(clean.record, 'clean', false, env)).toEqual({
      path: clean.record.path,
      branch: 'clippy/clean',
      lost: null,
    });
    const gone = await create({ cwd: r, name: 'gone' });
    fs.rmSync(gone.record.path, { recursive: true });
    await removeWorktree(gone.record, 'gone', false, env);
    expect(git(r, ['worktree', 'list', '--porcelain'])).not.toContain(gone.record.path);
    expect(
      git(r, ['branch', '--list', 'clippy/*'])
        .split('\n')
        .map((b) => b.trim())
        .filter(Boolean),
    ).toEqual(['clippy/clean', 'clippy/gone', 'clippy/rm']);
  });
});
