import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { DiffFile, SessionInfo } from '@clippy/protocol';
import { diffPatchLines } from '@clippy/system/git';
import { agentCommand } from '@clippy/testkit/agents/index';
import { askTurn, submissions, waitChannelLive, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, git, writeFiles } from '@clippy/testkit/git';
import { RepoTemplate } from '@clippy/testkit/repo-template';
import { eventually, until } from '@clippy/testkit/until';

// Worktrees end to end (issue 37): the real CLI and daemon, real git, fake agents that edit
// files as they answer. A session gets a worktree of its own; `ls` and `diff` show its work;
// `kill` keeps it, `rm` removes it only when nothing would be lost; a review loop hands the
// writer's actual diff to the reviewer each round.

/** How long a chain of fake-agent turns may take on a loaded machine. */
const FLOW_TIMEOUT_MS = 45_000;
/** How long a worktree's count (git, after a turn or a restart) may take on a loaded machine. */
const COUNT_TIMEOUT_MS = 20_000;
/** Pause between two looks at a session's counted changes. */
const COUNT_POLL_MS = 50;

let d: TestDaemon;
let c: ClippyClient;
let n = 0;
beforeAll(async () => {
  // The daemon runs git with none of the machine's git settings (testkit's GIT_TEST_ENV).
  d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
  c = await d.connect();
  template = new RepoTemplate(d.env.root);
});
afterAll(async () => {
  await c?.close();
  await d?.stop();
});

const clippy = (args: string[]) => runClippy(args, d.env.env);

/** Each test's repository: a copy of makeRepo's, made once in the daemon's folder. */
let template: RepoTemplate;
function repo(): string {
  return template.copy(path.join(d.env.root, `repo${++n}`));
}

/** A fake agent's command line (`-- node …/aider.js --log FILE …`) and its log file. */
function agent(
  name: string,
  kind: 'aider' | 'claude',
  extra: { edits?: unknown[]; replies?: string[] } = {},
): { argv: string[]; log: string } {
  const log = path.join(d.env.root, `${name}.log`);
  const args = ['--log', log];
  for (const key of ['edits', 'replies'] as const) {
    if (!extra[key]) continue;
    const file = path.join(d.env.root, `${name}.${key}.json`);
    writeFileSync(file, JSON.stringify(extra[key]));
    args.push(`--${key}`, file);
  }
  const { command, args: full } = agentCommand(kind, args);
  return { argv: ['--preset', kind, '--', command, ...full], log };
}

/**
 * The session as `clippy ls -a --json` lists it (the daemon's list, exited ones too), through
 * the test's client: a CLI process per look costs a second of CPU on a loaded machine.
 */
async function session(name: string, client: ClippyClient = c): Promise<SessionInfo> {
  const { sessions } = await client.request('list_sessions', {});
  return sessions.find((s) => s.name === name)!;
}

/**
 * Waits until the session's listed worktree changes are `expected`, then checks them: a listing
 * waits 500 ms (the daemon's CHANGES_WAIT_MS) for a count under way and past it shows the last
 * one, so on a loaded machine the count after a turn or a restart is listed a look later.
 */
async function countedChanges(
  name: string,
  expected: { files: number; added: number; removed: number },
  client: ClippyClient = c,
): Promise<void> {
  let changes: { files: number; added: number; removed: number } | null | undefined;
  await eventually(
    async () => {
      changes = (await session(name, client)).worktree?.changes;
      return (
        changes?.files === expected.files &&
        changes.added === expected.added &&
        changes.removed === expected.removed
      );
    },
    `${name}'s changes`,
    COUNT_TIMEOUT_MS,
    COUNT_POLL_MS,
  ).catch(() => {}); // the assertion below says what was listed instead
  expect(changes).toMatchObject(expected);
}

/**
 * What `clippy new -d --cwd CWD [--worktree NAME] ARGV…` asks of the daemon, through the test's
 * client: for sessions a test sets up, not the ones whose `new` it checks. `argv` is
 * agent()'s (`--preset P -- COMMAND ARGS…`).
 */
async function spawn(
  name: string,
  cwd: string,
  argv: string[],
  opts: { worktree?: boolean; persist?: boolean; client?: ClippyClient; env?: DaemonEnv } = {},
): Promise<void> {
  const [flag, preset, dashes, command, ...args] = argv;
  if (flag !== '--preset' || dashes !== '--' || !preset || !command) {
    throw new Error(`not an agent command line: ${argv.join(' ')}`);
  }
  const env = opts.env ?? d.env;
  await (opts.client ?? c).request(
    'spawn',
    {
      command,
      args,
      name,
      preset,
      cwd,
      env: { ...(env.env as Record<string, string>), TERM: 'xterm-256color' },
      ...(opts.persist ? { persist: true } : {}),
      ...(opts.worktree ? { worktree: { name } } : {}),
    },
    // A checkout takes what it takes (as for `clippy new --worktree`): the daemon bounds git.
    { timeoutMs: 0 },
  );
}

describe('clippy new --worktree, ls and diff', { timeout: 120_000 }, () => {
  it('starts the agent in a worktree of its own, where its edits land; ls and diff show them', async () => {
    const r = repo();
    const head = git(r, ['rev-parse', 'HEAD']).trim();
    const a = agent('fix', 'aider', {
      edits: [[{ write: 'parse.ts', text: 'export const parse = (s: string) => s.split(",");\n' }]],
    });
    const made = await clippy([
      'new',
      '-d',
      '--cwd',
      path.join(r, 'src'),
      '--worktree',
      'fix',
      ...a.argv,
    ]);
    expect(made.code).toBe(0);
    const info = await session('fix');
    const w = info.worktree!;
    expect(made.stdout).toBe(`fix\t${info.session}\n`);
    expect(made.stderr).toBe(
      `clippy: fix works in ${w.path}, on branch clippy/fix from main (${head.slice(0, 12)})\n`,
    );
    expect(w).toMatchObject({ branch: 'clippy/fix', base: head, base_ref: 'refs/heads/main' });
    expect(path.relative(r, w.path).startsWith('..')).toBe(true);
    expect(info.cwd).toBe(path.join(w.path, 'src'));
    await waitState(c, 'fix', 'idle');

    // The agent's edit lands in the worktree (where it runs), not in the user's tree.
    await askTurn(c, 'fix', 'add a parser');
    expect(existsSync(path.join(w.path, 'src', 'parse.ts'))).toBe(true);
    expect(existsSync(path.join(r, 'src', 'parse.ts'))).toBe(false);
    // Counted when the agent's turn ended: its own edit.
    await countedChanges('fix', { files: 1, added: 1, removed: 0 });
    // And the person's: a change, a deletion, a commit on the branch.
    writeFiles(w.path, { 'README.md': '# demo\n\nChanged in the worktree.\n' });
    git(w.path, ['rm', '--quiet', 'docs/guide.md']);
    git(w.path, ['commit', '--quiet', '-m', 'drop the guide']);

    // Reads of one state (each a CLI process, a second of CPU under load): run at once.
    const [stat, names] = await Promise.all([
      clippy(['diff', 'fix', '--stat']),
      clippy(['diff', 'fix', '--name-only']),
    ]);
    expect(stat).toEqual({
      code: 0,
      stdout:
        ' README.md     | 2 +-\n' +
        ' docs/guide.md | 1 -\n' +
        ' src/parse.ts  | 1 +\n' +
        ' 3 files changed, 2 insertions(+), 2 deletions(-)\n',
      stderr: '',
    });
    expect(names.stdout).toBe('README.md\ndocs/guide.md\nsrc/parse.ts\n');
    // A diff counts again too: ls shows what it showed.
    const ls = await clippy(['ls']);
    expect(ls.stdout).toMatch(/ BRANCH +CHANGES\n/u);
    expect(ls.stdout).toMatch(/^fix .* clippy\/fix +\+2 −2$/mu);
    expect((await session('fix')).worktree!.changes).toMatchObject({
      files: 3,
      added: 2,
      removed: 2,
    });
    const [patch, oneRun] = await Promise.all([
      clippy(['diff', 'fix']),
      clippy(['diff', 'fix', 'README.md', '--json']),
    ]);
    expect(patch.stdout).toContain(
      'diff --git a/src/parse.ts b/src/parse.ts\nnew file mode 100644\n' +
        `index 0000000..${git(w.path, ['hash-object', 'src/parse.ts']).trim().slice(0, 7)}\n` +
        '--- /dev/null\n+++ b/src/parse.ts\n@@ -0,0 +1 @@\n' +
        '+export const parse = (s: string) => s.split(",");\n',
    );
    expect(patch.stdout).toContain(
      'diff --git a/docs/guide.md b/docs/guide.md\ndeleted file mode 100644\n',
    );
    const one = JSON.parse(oneRun.stdout) as {
      files: DiffFile[];
      base: string;
    };
    expect(one.base).toBe(head);
    expect(one.files.map((f) => [f.path, f.status, f.added, f.removed])).toEqual([
      ['README.md', 'modified', 1, 1],
    ]);
    expect(one.files[0]!.hunks![0]!.lines).toEqual([
      ' # demo',
      ' ',
      '-A repository for tests.',
      '+Changed in the worktree.',
    ]);

    // The protocol's client checks every answer against its schema: `diff` and `list_sessions`.
    const checked = await c.request('diff', { session: 'fix', detail: 'patch' });
    expect(checked.totals).toEqual({ files: 3, added: 2, removed: 2 });
    // `clippy diff` prints the patch the daemon writes as one text (detail `text`): the same
    // lines as the structured patch, the files without their hunks.
    const asText = await c.request('diff', { session: 'fix', detail: 'text' });
    expect(asText.text).toBe(`${diffPatchLines(checked.files).join('\n')}\n`);
    expect(patch.stdout).toBe(asText.text);
    expect(asText.files.map((f) => [f.path, f.added, f.removed, f.header, f.hunks])).toEqual(
      checked.files.map((f) => [f.path, f.added, f.removed, undefined, undefined]),
    );
    expect(
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'fix')!.worktree!
        .branch,
    ).toBe('clippy/fix');

    // A session without a worktree has no diff to show.
    await spawn('plain', r, agent('plain', 'aider').argv);
    const none = await clippy(['diff', 'plain']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      "clippy: session 'plain' runs in no worktree of its own (clippy new --worktree makes one) (no_worktree)\n",
    );
    await c.request('kill', { session: 'plain', remove: true });
  });

  it('refuses clearly, and starts nothing: no repository, a bare one, a taken branch, bad options', async () => {
    const plain = path.join(d.env.root, 'not-a-repo');
    mkdirSync(plain);
    const names = async () => (await c.request('list_sessions', {})).sessions.map((s) => s.session);
    const before = await names();
    const a = agent('refused', 'aider');
    const bare = path.join(d.env.root, 'bare.git');
    git(d.env.root, ['init', '--quiet', '--bare', bare]);
    const r = repo();
    git(r, ['branch', 'clippy/taken']);
    // The bad --base in a repository of its own: no two refusals read one repository at once.
    const r2 = repo();
    // Refusals that start nothing (each a node start-up): run at once.
    const [outside, b, taken, noWorktree, badName, badBase] = await Promise.all(
      [
        ['--cwd', plain, '--worktree'],
        ['--cwd', bare, '--worktree'],
        ['--cwd', r, '--worktree', 'taken'],
        ['--cwd', r, '--base', 'main'],
        ['--cwd', r, '--worktree', 'a..b'],
        ['--cwd', r2, '--worktree', 'x', '--base', 'nope'],
      ].map((opts) => clippy(['new', '-d', ...opts, ...a.argv])),
    );
    expect(outside!.code).toBe(1);
    expect(outside!.stderr).toBe(
      `clippy: '${plain}' is not in a git repository: a worktree branches from one (git init, or --cwd into a clone) (not_a_git_repository)\n`,
    );
    expect(b!.stderr).toMatch(
      /is a bare repository: it has no working tree to branch from.*\(bare_repository\)\n$/u,
    );
    expect(taken!.code).toBe(1);
    expect(taken!.stderr).toMatch(
      /^clippy: branch clippy\/taken exists already \(in no worktree\)\. .*\(branch_exists\)\n$/u,
    );
    expect(noWorktree).toMatchObject({
      code: 64,
      stderr: 'clippy: --base goes with --worktree (the branch it starts from)\n',
    });
    expect(badName!.code).toBe(64);
    expect(badName!.stderr).toMatch(/^clippy: --worktree 'a\.\.b': letters, digits/u);
    expect(badBase!.stderr).toBe(
      `clippy: --base 'nope' names no commit in the repository at '${r2}' (invalid_argument)\n`,
    );
    // Nothing was started, nothing was left behind.
    expect(await names()).toEqual(before);
    for (const repoDir of [r, r2]) {
      expect(git(repoDir, ['worktree', 'list', '--porcelain']).match(/^worktree /gmu)).toHaveLength(
        1,
      );
    }
  });

  it('kill keeps the worktree; rm removes it only when nothing would be lost, or with --force after saying what; the branch stays', async () => {
    const r = repo();
    for (const name of ['clean', 'dirty', 'live']) {
      await spawn(name, r, agent(name, 'aider').argv, { worktree: true });
      await waitState(c, name, 'idle');
    }
    const clean = (await session('clean')).worktree!.path;
    const dirty = (await session('dirty')).worktree!.path;
    writeFiles(dirty, { 'src/app.ts': 'changed\n', 'todo.txt': 'new\n' });

    const killed = await clippy(['kill', 'dirty']);
    expect(killed.code).toBe(0);
    expect(killed.stderr).toBe(
      `clippy: dirty stays listed (exited): its worktree ${dirty} is kept, as kill never removes one (clippy diff dirty, then clippy rm dirty)\n`,
    );
    expect((await session('dirty')).state).toBe('exited');
    expect(existsSync(path.join(dirty, 'todo.txt'))).toBe(true);
    // Looks that change nothing (each a CLI process): run at once. A running session is not
    // removed at all.
    const [diffed, refused, live] = await Promise.all([
      clippy(['diff', 'dirty', '--name-only']),
      clippy(['rm', 'dirty']),
      clippy(['rm', 'live']),
    ]);
    expect(diffed.stdout).toBe('src/app.ts\ntodo.txt\n');
    expect(live.stderr).toMatch(/is still running/u);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `clippy: session 'dirty' has work in its worktree ${dirty}: uncommitted: 1 changed file (src/app.ts), 1 untracked file (todo.txt). Nothing was removed: commit and merge it, or --force removes the worktree anyway (its branch clippy/dirty stays, with its commits) (worktree_has_changes)\n`,
    );
    expect(existsSync(path.join(dirty, 'todo.txt'))).toBe(true);
    expect(await session('dirty')).toBeDefined();
    // Committed, the work is still only on its branch: refused still.
    git(dirty, ['add', '-A']);
    git(dirty, ['commit', '--quiet', '-m', 'work']);
    expect((await clippy(['rm', 'dirty'])).stderr).toMatch(
      /: 1 commit on clippy\/dirty that no other branch holds\. Nothing was removed/u,
    );
    writeFiles(dirty, { 'scratch.txt': 'thrown away\n' });
    const forced = await clippy(['rm', '--force', 'dirty']);
    expect(forced).toEqual({
      code: 0,
      stdout: '',
      stderr: `clippy: removed the worktree ${dirty}; lost: 1 untracked file (scratch.txt); branch clippy/dirty kept\n`,
    });
    expect(existsSync(dirty)).toBe(false);
    expect(git(r, ['log', '--format=%s', '-1', 'clippy/dirty']).trim()).toBe('work');
    expect(await session('dirty')).toBeUndefined();

    // Clean and with nothing only its branch has: rm after kill removes it, the branch stays.
    await c.request('kill', { session: 'clean', remove: true });
    const rm = await clippy(['rm', 'clean']);
    expect(rm).toEqual({
      code: 0,
      stdout: '',
      stderr: `clippy: removed the worktree ${clean}; branch clippy/clean kept\n`,
    });
    expect(git(r, ['branch', '--list', 'clippy/clean']).trim()).toBe('clippy/clean');
    await c.request('kill', { session: 'live', remove: true });
    await c.request('remove', { session: 'live' }, { timeoutMs: 0 });
  });

  it('a worktree folder replaced by a symbolic link: rm refuses, rm --force removes the link and the session, never what it points to', async () => {
    const r = repo();
    await spawn('linked', r, agent('linked', 'aider').argv, { worktree: true });
    await waitState(c, 'linked', 'idle');
    const folder = (await session('linked')).worktree!.path;
    await c.request('kill', { session: 'linked', remove: true });
    // Someone's folder, with work of its own, where the worktree was.
    const elsewhere = path.join(d.env.root, 'elsewhere');
    writeFiles(elsewhere, { 'keep.txt': 'mine\n' });
    rmSync(folder, { recursive: true, force: true });
    symlinkSync(elsewhere, folder);

    const refused = await clippy(['rm', 'linked']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `clippy: the worktree folder ${folder} of session 'linked' has been replaced by a symbolic link (to ${elsewhere}); clippy does not follow it. Nothing was removed: --force removes the link and the session (${elsewhere} and the branch clippy/linked stay) (worktree_replaced)\n`,
    );
    expect(await session('linked')).toBeDefined();

    const forced = await clippy(['rm', '--force', 'linked']);
    expect(forced).toEqual({
      code: 0,
      stdout: '',
      stderr: `clippy: removed the symbolic link ${folder} that had replaced its worktree (${elsewhere} left untouched); branch clippy/linked kept\n`,
    });
    expect(await session('linked')).toBeUndefined();
    expect(existsSync(folder)).toBe(false);
    expect(readFileSync(path.join(elsewhere, 'keep.txt'), 'utf8')).toBe('mine\n');
    expect(git(r, ['worktree', 'list', '--porcelain'])).not.toContain(folder);
    expect(git(r, ['branch', '--list', 'clippy/linked']).trim()).toBe('clippy/linked');
  });
});

describe('a review loop over the real diff', { timeout: 120_000 }, () => {
  it('each round, the reviewer reads what the writer changed, as its diff', async () => {
    const r = repo();
    const parse1 = 'export function parse(s: string) {\n  return s.split(",");\n}\n';
    const parse2 =
      'export function parse(s: string) {\n  return s.split(",").map((x) => x.trim());\n}\n';
    const test2 = 'import { parse } from "./parse";\nparse("a, b");\n';
    const writer = agent('writer', 'aider', {
      edits: [
        [{ write: 'src/parse.ts', text: parse1 }],
        [
          { write: 'src/parse.ts', text: parse2 },
          { write: 'src/parse.test.ts', text: test2 },
        ],
      ],
    });
    const reviewer = agent('reviewer', 'claude', {
      replies: ['trim the parts, add a test', 'LGTM'],
    });
    await spawn('writer', r, writer.argv, { worktree: true });
    await spawn('reviewer', r, reviewer.argv);
    await waitState(c, 'writer', 'idle');
    await waitState(c, 'reviewer', 'idle');
    const w = (await session('writer')).worktree!.path;

    // The diff template on the leg whose source has no worktree is refused, saying which leg does what.
    const wrongLeg = await clippy([
      'loop',
      'writer',
      'reviewer',
      '--until',
      'LGTM',
      '--template-b',
      'review-diff',
    ]);
    expect(wrongLeg.code).toBe(64);
    expect(wrongLeg.stderr).toBe(
      "clippy: template 'review-diff' shows the diff of 'reviewer', which runs in no worktree of its own (clippy new --worktree): it would shape what reviewer sends to writer (--template-b shapes what B sends back to A; --template-a what A sends to B) (invalid_template)\n",
    );

    const loop = await clippy([
      'loop',
      'writer',
      'reviewer',
      '--until',
      'LGTM',
      '--name',
      'review',
      '--template-a',
      'review-diff',
      '--prompt',
      'write the parser',
    ]);
    expect(loop.stderr).toBe('');
    await until(() => submissions(reviewer.log).length === 2, 'two reviews asked', FLOW_TIMEOUT_MS);
    const asked = submissions(reviewer.log).map((s) => s.text);
    const id = (text: string) => git(w, ['hash-object', '--stdin'], text).trim().slice(0, 7);

    expect(asked[0]).toContain(
      'Its diff against where it started:\n\n' +
        ' src/parse.ts | 3 +++\n' +
        ' 1 file changed, 3 insertions(+)\n\n' +
        'diff --git a/src/parse.ts b/src/parse.ts\n' +
        'new file mode 100644\n' +
        `index 0000000..${id(parse1)}\n` +
        '--- /dev/null\n' +
        '+++ b/src/parse.ts\n' +
        '@@ -0,0 +1,3 @@\n' +
        '+export function parse(s: string) {\n' +
        '+  return s.split(",");\n' +
        '+}\n\n' +
        'What writer said:\n\n' +
        'Applied edit to src/parse.ts\n',
    );
    expect(asked[0]).toMatch(
      /^Review the change writer made \(\w+:1\)\. If it is ready, answer LGTM/u,
    );
    // Round two: the whole change so far (both files), not the last edit alone.
    expect(asked[1]).toContain(
      ' src/parse.test.ts | 2 ++\n' +
        ' src/parse.ts      | 3 +++\n' +
        ' 2 files changed, 5 insertions(+)\n\n' +
        'diff --git a/src/parse.test.ts b/src/parse.test.ts\n',
    );
    expect(asked[1]).toContain('+  return s.split(",").map((x) => x.trim());\n');
    // The writer got the review back (plain), and the loop ended on the LGTM.
    expect(submissions(writer.log).map((s) => s.text)).toEqual([
      'write the parser',
      'trim the parts, add a test',
    ]);
    // The loop ends with the reviewer's LGTM turn (the reviewer may still look idle when its
    // second review was just asked: its state is no sign the turn is over).
    const routes = await eventually(
      async () => {
        const listed = (await c.request('list_routes', {})).routes;
        return listed.every((x) => x.state === 'ended') && listed;
      },
      'the review loop ended',
      FLOW_TIMEOUT_MS,
    );
    expect(routes.map((x) => [x.route, x.state, x.fired])).toEqual([
      ['review.a', 'ended', 2],
      ['review.b', 'ended', 2],
    ]);
    expect(routes[0]!.reason).toMatch(/^turn \w+:2 of 'reviewer' matched --until$/u);
  });
});

describe('a session’s worktree across a daemon restart', { timeout: 120_000 }, () => {
  it('is kept with its persisted metadata: listed again, diff and rm still reach it', async () => {
    const env = new DaemonEnv({ ...GIT_TEST_ENV });
    const first = await TestDaemon.start({ env });
    try {
      const r = template.copy(path.join(env.root, 'repo'));
      const c1 = await first.connect();
      let before: NonNullable<SessionInfo['worktree']>;
      try {
        await spawn('kept', r, agent('kept', 'aider').argv, {
          worktree: true,
          persist: true,
          client: c1,
          env,
        });
        before = (await session('kept', c1)).worktree!;
      } finally {
        await c1.close();
      }
      writeFiles(before.path, { 'src/app.ts': 'changed while the daemon was away\n' });
      process.kill(first.pid, 'SIGTERM');
      await first.exited;

      const second = await TestDaemon.start({ env });
      // Restored, its worktree is counted again (git, off the listing's path): waited for.
      const c2 = await second.connect();
      try {
        await countedChanges('kept', { files: 1, added: 1, removed: 3 }, c2);
      } finally {
        await c2.close();
      }
      // Looks that change nothing (each a CLI process): run at once.
      const [listed, diffed, refused] = await Promise.all([
        runClippy(['ls', '-a', '--json'], env.env),
        runClippy(['diff', 'kept', '--name-only'], env.env),
        runClippy(['rm', 'kept'], env.env),
      ]);
      const after = (JSON.parse(listed.stdout) as { sessions: SessionInfo[] }).sessions.find(
        (s) => s.name === 'kept',
      )!;
      expect(after.restored).toBe(true);
      // Its folder is the worktree's: where a revive (issue 32) starts the agent again.
      expect(after.cwd).toBe(before.path);
      expect(after.worktree).toMatchObject({
        path: before.path,
        branch: 'clippy/kept',
        base: before.base,
        base_ref: 'refs/heads/main',
        changes: { files: 1, added: 1, removed: 3 },
      });
      expect(diffed.stdout).toBe('src/app.ts\n');
      expect(refused.code).toBe(1);
      expect((await runClippy(['rm', '--force', 'kept'], env.env)).code).toBe(0);
      expect(existsSync(before.path)).toBe(false);
    } finally {
      await env.dispose();
    }
  });
});

// Two agents started, asked, killed and one revived: many CLI runs on a loaded machine.
describe('clippy revive of an agent that had a worktree (issue 32)', { timeout: 240_000 }, () => {
  it('resumes its conversation in that worktree; refuses when the worktree is gone, and keeps the session', async () => {
    const r = repo();
    // The fake Claude Code runs the hooks clippy wires: its turns name its session, which
    // revive resumes (`--resume ID`).
    const { command, args } = agentCommand('claude', ['--hooks']);
    for (const name of ['back', 'gone']) {
      await spawn(name, r, ['--preset', 'claude', '--', command, ...args], { worktree: true });
      await waitState(c, name, 'idle');
      await waitChannelLive(c, name);
      await askTurn(c, name, `first question to ${name}`);
    }

    const before = await session('back');
    const worktree = before.worktree!.path;
    const { turn: first } = await c.request('get_turn', { session: 'back' });
    expect(first.agent?.session_id).toBeDefined();
    await c.request('kill', { session: 'back', remove: true });
    expect((await session('back')).state).toBe('exited');
    const revived = await clippy(['revive', 'back', '-d', '--json']);
    expect(revived.code, revived.stderr).toBe(0);
    const out = JSON.parse(revived.stdout) as { session: string; pid: number; args: string[] };
    expect(out).toMatchObject({
      session: before.session,
      args: [args[0], '--resume', first.agent!.session_id, ...args.slice(1)],
    });
    await waitState(c, 'back', 'idle');
    // The agent runs in the worktree again (its process's folder), listed with it.
    expect(readlinkSync(`/proc/${out.pid}/cwd`)).toBe(worktree);
    expect(await session('back')).toMatchObject({
      cwd: worktree,
      worktree: { path: worktree, branch: 'clippy/back' },
    });
    const nextId = await askTurn(c, 'back', 'second question');
    const { turn: next } = await c.request('get_turn', { session: 'back' });
    expect(next.turn_id).toBe(nextId);
    expect(next.seq).toBe(first.seq + 1);
    expect(next.agent?.session_id).toBe(first.agent!.session_id);
    await c.request('kill', { session: 'back', remove: true });

    // Its worktree removed behind clippy's back: no agent starts somewhere else.
    const gone = (await session('gone')).worktree!.path;
    await c.request('kill', { session: 'gone', remove: true });
    git(r, ['worktree', 'remove', '--force', gone]);
    const refused = await clippy(['revive', 'gone', '-d']);
    expect(refused).toEqual({
      code: 64,
      stdout: '',
      stderr: `clippy: session 'gone' cannot be revived: its worktree ${gone} is gone (git worktree remove, or rm --force) (not_revivable)\n`,
    });
    expect(await session('gone')).toMatchObject({ state: 'exited' });
    const { turns } = await c.request('list_turns', { session: 'gone' });
    expect(turns).toHaveLength(1);
  });
});
