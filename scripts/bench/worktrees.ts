/**
 * `npm run bench -- worktrees`: on a repository of 10,000 files, the real CLI process of
 * `clippy new -d --worktree` against plain `git worktree add` (the checkout both do), and
 * `clippy diff` against `git diff` on a worktree with an agent's worth of changes (edited,
 * deleted and new files), each pair measured side by side in one run. Also what git alone
 * must do for clippy's diff (the diff and the list of new files, at once), the `diff` request
 * alone (a connected client: the daemon's answer, the path of `--json` and of a session on
 * another host) and `node -e 0` (the floor of any node program). Prints medians and ratios; asserts nothing. Needs
 * `npm run build` (it runs the built bin/clippy.js, as a user does).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, git } from '@clippy/testkit/git';
import { bins } from '@clippy/testkit/paths';
import { isMain, loadAverage, median, tempDir, timed as timedProgram } from './_common.js';

/** Files in the repository (the issue's size). */
const FILES = 10_000;
/** Files per folder: 100 folders of 100. */
const PER_FOLDER = 100;
/** Rounds counted of each comparison, and rounds run first and not counted (disk cache). */
const ADD_RUNS = 5;
const DIFF_RUNS = 15;
const WARMUP = 1;
/** The agent's work the diff is taken of: files edited, deleted and added. */
const EDITED = 60;
const DELETED = 5;
const ADDED = 12;
/** Longest one command may take before the benchmark calls it hung. */
const COMMAND_TIMEOUT_MS = 120_000;

/** Runs a program in `cwd` to its end: its wall time in ms (see _common's timed). */
const timed = (argv: string[], cwd: string, env: NodeJS.ProcessEnv) =>
  timedProgram(argv, env, { cwd, timeoutMs: COMMAND_TIMEOUT_MS });

function line(name: string, ms: number[], base: number | null): string {
  const m = median(ms);
  const ratio = base === null ? '' : `${(m / base).toFixed(2)}x`;
  return `${name.padEnd(34)} ${`${m.toFixed(1)} ms`.padStart(10)} ${ratio.padStart(8)}\n`;
}

/** A repository of FILES small text files in two commits (a history, as a real one has). */
function makeBigRepo(dir: string): void {
  fs.mkdirSync(dir);
  git(dir, ['init', '--quiet', '--initial-branch=main']);
  for (let i = 0; i < FILES; i++) {
    const folder = path.join(dir, `pkg${String(Math.floor(i / PER_FOLDER)).padStart(3, '0')}`);
    if (i % PER_FOLDER === 0) fs.mkdirSync(folder);
    const body = Array.from({ length: 20 }, (_, k) => `export const v${k} = ${i * 20 + k};`);
    fs.writeFileSync(path.join(folder, `mod${i % PER_FOLDER}.ts`), `${body.join('\n')}\n`);
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '-m', 'ten thousand files']);
  fs.appendFileSync(path.join(dir, 'pkg000', 'mod0.ts'), '// second commit\n');
  git(dir, ['commit', '--quiet', '-am', 'second']);
}

/** What an agent leaves in its worktree: some files edited, a few deleted, new ones. */
function agentWork(worktree: string): void {
  for (let i = 0; i < EDITED; i++) {
    const f = path.join(worktree, `pkg${String(i).padStart(3, '0')}`, 'mod1.ts');
    const text = fs.readFileSync(f, 'utf8').replace('= ', '= 1 + ');
    fs.writeFileSync(f, `${text}export const added${i} = true;\n`);
  }
  for (let i = 0; i < DELETED; i++)
    fs.rmSync(path.join(worktree, `pkg${String(50 + i).padStart(3, '0')}`, 'mod2.ts'));
  for (let i = 0; i < ADDED; i++) {
    const body = Array.from({ length: 40 }, (_, k) => `export const n${k} = ${k};`).join('\n');
    fs.writeFileSync(path.join(worktree, 'pkg099', `new${i}.ts`), `${body}\n`);
  }
}

export async function run(): Promise<void> {
  const tmp = tempDir();
  const env = new DaemonEnv({ ...GIT_TEST_ENV });
  const d = await TestDaemon.start({ env });
  try {
    const c = await d.connect();
    const repo = path.join(tmp.dir, 'repo');
    const made = performance.now();
    makeBigRepo(repo);
    process.stdout.write(
      `a repository of ${FILES} files in ${((performance.now() - made) / 1000).toFixed(1)} s; load ${loadAverage()}\n`,
    );
    const runEnv = { ...env.env, ...GIT_TEST_ENV };
    const clippy = (...args: string[]) => [process.execPath, bins.clippy, ...args];
    const plainDir = path.join(tmp.dir, 'plain');

    // --- new --worktree against git worktree add ---
    const add = { git: [] as number[], clippy: [] as number[], request: [] as number[] };
    const spawnRequest = async (name: string) => {
      const started = performance.now();
      await c.request(
        'spawn',
        {
          command: 'sleep',
          args: ['600'],
          cwd: repo,
          env: runEnv as Record<string, string>,
          worktree: { name },
        },
        { timeoutMs: 0 },
      );
      return performance.now() - started;
    };
    for (let round = 0; round < WARMUP + ADD_RUNS; round++) {
      // Alternating the order: none always meets the others' page cache.
      const order = (['git', 'clippy', 'request'] as const).slice();
      if (round % 2) order.reverse();
      for (const which of order) {
        const ms =
          which === 'request'
            ? await spawnRequest(`q${round}`)
            : which === 'git'
              ? await timed(
                  [
                    'git',
                    'worktree',
                    'add',
                    '--quiet',
                    '-b',
                    `plain/r${round}`,
                    path.join(plainDir, `r${round}`),
                    'HEAD',
                  ],
                  repo,
                  runEnv,
                )
              : await timed(
                  clippy(
                    'new',
                    '-d',
                    '--cwd',
                    repo,
                    '--worktree',
                    `r${round}`,
                    '--',
                    'sleep',
                    '600',
                  ),
                  repo,
                  runEnv,
                );
        if (round >= WARMUP) add[which].push(ms);
      }
      // Untimed: the session ends, both worktrees go (the branches with them: the bench's own).
      // (Deleting 10,000 files takes what it takes on a loaded machine: no request timeout.)
      const slow = { timeoutMs: 0 };
      for (const session of [`r${round}`, `q${round}`]) {
        await c.request('kill', { session, signal: 'SIGKILL', remove: true }, slow);
        await c.request('remove', { session, force: true }, slow);
      }
      git(repo, ['worktree', 'remove', '--force', path.join(plainDir, `r${round}`)]);
      git(repo, [
        'branch',
        '-D',
        '--quiet',
        `plain/r${round}`,
        `clippy/r${round}`,
        `clippy/q${round}`,
      ]);
    }

    const gitAdd = median(add.git);
    process.stdout.write(
      `\nnew worktree: median of ${ADD_RUNS} (after ${WARMUP} warm-up), side by side\n` +
        line('git worktree add -b B DIR HEAD', add.git, gitAdd) +
        line('clippy new -d --worktree N -- sleep', add.clippy, gitAdd) +
        line('spawn request (daemon only)', add.request, gitAdd),
    );

    // --- clippy diff against git diff ---
    await timed(
      clippy('new', '-d', '--cwd', repo, '--worktree', 'agent', '--', 'sleep', '600'),
      repo,
      runEnv,
    );
    const { sessions } = await c.request('list_sessions', {});
    const worktree = sessions.find((s) => s.name === 'agent')!.worktree!;
    agentWork(worktree.path);
    const diff = {
      node: [] as number[],
      gitDiff: [] as number[],
      gitDiffBase: [] as number[],
      gitWork: [] as number[],
      clippyDiff: [] as number[],
      clippyStat: [] as number[],
      request: [] as number[],
    };
    for (let round = 0; round < WARMUP + DIFF_RUNS; round++) {
      const runs: [keyof typeof diff, () => Promise<number>][] = [
        ['node', () => timed([process.execPath, '-e', '0'], repo, runEnv)],
        ['gitDiff', () => timed(['git', 'diff'], worktree.path, runEnv)],
        ['gitDiffBase', () => timed(['git', 'diff', worktree.base], worktree.path, runEnv)],
        [
          'gitWork',
          async () => {
            // What clippy diff has git do: the diff, and the new files listed, at once.
            const started = performance.now();
            await Promise.all([
              timed(['git', 'diff', '--merge-base', 'main'], worktree.path, runEnv),
              timed(['git', 'ls-files', '--others', '--exclude-standard'], worktree.path, runEnv),
            ]);
            return performance.now() - started;
          },
        ],
        ['clippyDiff', () => timed(clippy('diff', 'agent'), repo, runEnv)],
        ['clippyStat', () => timed(clippy('diff', 'agent', '--stat'), repo, runEnv)],
        [
          'request',
          async () => {
            const started = performance.now();
            await c.request('diff', { session: 'agent', detail: 'patch' }, { timeoutMs: 0 });
            return performance.now() - started;
          },
        ],
      ];
      if (round % 2) runs.reverse();
      for (const [name, fn] of runs) {
        const ms = await fn();
        if (round >= WARMUP) diff[name].push(ms);
      }
    }
    const answer = await c.request('diff', { session: 'agent', detail: 'files' });

    const gitDiffBase = median(diff.gitDiffBase);
    process.stdout.write(
      `\ndiff of ${answer.totals.files} files (+${answer.totals.added} −${answer.totals.removed}, ${ADDED} of them new): median of ${DIFF_RUNS}, vs git diff BASE\n` +
        line('node -e 0', diff.node, gitDiffBase) +
        line('git diff (unstaged only)', diff.gitDiff, gitDiffBase) +
        line('git diff BASE (no new files)', diff.gitDiffBase, gitDiffBase) +
        line('git diff + ls-files -o, at once', diff.gitWork, gitDiffBase) +
        line('clippy diff S', diff.clippyDiff, gitDiffBase) +
        line('clippy diff S --stat', diff.clippyStat, gitDiffBase) +
        line('diff request (daemon only)', diff.request, gitDiffBase) +
        `clippy diff vs git diff: ${(median(diff.clippyDiff) / median(diff.gitDiff)).toFixed(2)}x; ` +
        `minus node's own start: ${((median(diff.clippyDiff) - median(diff.node)) / gitDiffBase).toFixed(2)}x of git diff BASE\n` +
        `load after the diffs ${loadAverage()}\n`,
    );
    await c.request('kill', { session: 'agent', signal: 'SIGKILL', remove: true });
    await c.close();
  } finally {
    // The daemon first (its sessions end), then the repository; a failed cleanup is said, and
    // does not hide what failed before it.
    await d.stop().catch((err: Error) => process.stdout.write(`cleanup: ${err.message}\n`));
    tmp.remove();
  }
}

if (isMain(import.meta.url)) await run();
