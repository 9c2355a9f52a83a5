import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { waitState } from '@clippy/testkit/agents/harness';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, git, gitOwnDiff, makeRepo, writeFiles } from '@clippy/testkit/git';
import { Nvim } from '@clippy/testkit/nvim';
import { bins } from '@clippy/testkit/paths';
import { programMissing } from '@clippy/testkit/requirements';
import { eventually as testkitEventually } from '@clippy/testkit/until';

// :ClippyDiff (issue 37): a session's changes in its worktree in a diff buffer, in a real
// headless Neovim against the real daemon, the worktree made and diffed by real git.

/** How long a result the plugin shows asynchronously (a buffer, a message) may take. */
const SHOWN_TIMEOUT_MS = 15_000;
const ERROR = 4; // vim.log.levels.ERROR

const hasNvim = programMissing('nvim', 'neovim') === null;
const nvims: Nvim[] = [];

let d: TestDaemon;
let c: ClippyClient;
let repo: string;
let worktree: string;
let base: string;

async function spawn(name: string, worktreeName?: string) {
  const { command, args } = agentCommand('aider', ['--log', path.join(d.env.root, `${name}.log`)]);
  const r = await c.request('spawn', {
    command,
    args,
    name,
    preset: 'aider',
    cwd: repo,
    env: d.env.env as Record<string, string>,
    ...(worktreeName ? { worktree: { name: worktreeName } } : {}),
  });
  await waitState(c, name, 'idle');
  return r;
}

async function startNvim(): Promise<Nvim> {
  const n = await Nvim.start(d.env.env);
  nvims.push(n);
  await n.lua(`require('clippy').setup({ clippy_cmd = { ... } })`, process.execPath, bins.clippy);
  return n;
}

/** Waits until `check` gives something; throws with the plugin's messages after the timeout. */
function eventually<T>(n: Nvim, check: () => Promise<T | null | undefined>): Promise<T> {
  return testkitEventually(
    check,
    async () => `shown (messages: ${JSON.stringify(await n.notes())})`,
    SHOWN_TIMEOUT_MS,
  );
}

const note = (n: Nvim, re: RegExp) =>
  eventually(n, async () => (await n.notes()).find((x) => re.test(x.msg)));

describe.skipIf(!hasNvim)(':ClippyDiff', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
    c = await d.connect();
    repo = makeRepo(path.join(d.env.root, 'repo'));
    base = git(repo, ['rev-parse', 'HEAD']).trim();
    worktree = (await spawn('writer', 'writer')).worktree!.path;
    await spawn('clean', 'clean');
    await spawn('plain');
    writeFiles(worktree, {
      'src/app.ts': 'export function add(a: number, b: number): number {\n  return b + a;\n}\n',
      'notes.md': 'check the sign\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2]),
    });
    fs.rmSync(path.join(worktree, 'src/util.ts'));
  });

  afterEach(async () => {
    for (const n of nvims.splice(0)) await n.dispose();
  });

  afterAll(async () => {
    await c?.close();
    await d?.stop();
  });

  it('shows the patch exactly as git prints it, coloured as a diff; <CR> opens the file at that line', async () => {
    const n = await startNvim();
    await n.command('syntax on');
    await n.command('ClippyDiff writer');
    const lines = await eventually(n, () => n.bufferLines('clippy://diff/writer'));
    expect(`${lines.join('\n')}\n`).toBe(gitOwnDiff(worktree, base));
    await note(n, /^clippy: clippy\/writer: 4 files, \+2 −3 against [0-9a-f]{10}$/);
    expect(await n.lua('return vim.bo.filetype')).toBe('diff');
    expect(await n.lua('return vim.b.clippy_worktree')).toBe(worktree);
    // What the eye sees: the added line in diff's colour for additions, the removed one in its own.
    const added = lines.indexOf('+  return b + a;') + 1;
    const removed = lines.indexOf('-  return a + b;') + 1;
    expect(added).toBeGreaterThan(0);
    const group = (line: number) =>
      n.lua<string>('return vim.fn.synIDattr(vim.fn.synID(..., 1, 1), "name")', line);
    expect(await group(added)).toBe('diffAdded');
    expect(await group(removed)).toBe('diffRemoved');
    // Read-only: a diff buffer is not something to type into by mistake.
    expect(await n.lua('return vim.bo.modifiable')).toBe(false);
    await n.lua('vim.api.nvim_win_set_cursor(0, { ..., 0 })', added);
    await n.lua(
      `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)`,
    );
    expect(await n.lua('return vim.api.nvim_buf_get_name(0)')).toBe(
      path.join(worktree, 'src/app.ts'),
    );
    expect(await n.lua('return vim.api.nvim_win_get_cursor(0)[1]')).toBe(2);
  });

  it('shows only the files named; says when there is nothing, no worktree, or no session given', async () => {
    const n = await startNvim();
    await n.command('ClippyDiff writer src/app.ts notes.md');
    const lines = await eventually(n, () => n.bufferLines('clippy://diff/writer'));
    expect(`${lines.join('\n')}\n`).toBe(
      gitOwnDiff(worktree, base, ['--', 'notes.md', 'src/app.ts']),
    );
    await n.command('ClippyDiff clean');
    expect((await note(n, /clean has no/)).msg).toBe(
      'clippy: clean has no changes on clippy/clean against its base',
    );
    expect(await n.bufferLines('clippy://diff/clean')).toBeNull();
    await n.command('ClippyDiff plain');
    const refused = await note(n, /plain/);
    expect(refused.level).toBe(ERROR);
    expect(refused.msg).toMatch(/worktree/);
    await n.command('ClippyDiff');
    expect((await note(n, /usage/)).msg).toBe('clippy: usage: :ClippyDiff {session} [{path} ...]');
  });
});
