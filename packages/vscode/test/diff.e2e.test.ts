import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { waitState } from '@clippy/testkit/agents/harness';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, git, makeRepo, writeFiles } from '@clippy/testkit/git';
import {
  eventually,
  messageShown,
  run,
  startExtension,
  viewNode,
  type Running,
} from './harness.js';
import { editor, workspace, type Uri } from './vscode-double.js';

// Open Session Changes (issue 37): a session's diff in VS Code's multi-file diff editor. The
// daemon, its worktree and git are real; what VS Code would show is read through the double:
// the command it was asked to run and the documents on each side.

let d: TestDaemon;
let c: ClippyClient;
let ext: Running;
let repo: string;
let worktree: string;
let base: string;

/** What the base commit holds at `file` (git itself). */
const atBase = (file: string) => git(repo, ['show', `${base}:${file}`]);

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

beforeAll(async () => {
  d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
  c = await d.connect();
  repo = makeRepo(path.join(d.env.root, 'repo'));
  base = git(repo, ['rev-parse', 'HEAD']).trim();
  worktree = (await spawn('writer', 'writer')).worktree!.path;
  await spawn('clean', 'clean');
  await spawn('plain');
  // A changed file, a new one, a deleted one, a renamed one and a binary one.
  writeFiles(worktree, {
    'src/app.ts': 'export function add(a: number, b: number): number {\n  return b + a;\n}\n',
    'notes.md': 'check the sign\n',
    'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2]),
  });
  fs.rmSync(path.join(worktree, 'src/util.ts'));
  fs.renameSync(path.join(worktree, 'docs/guide.md'), path.join(worktree, 'docs/adding.md'));
  ext = startExtension(d.env.env);
  await eventually(() => editor.context.get('clippy.hasWorktrees') === true, 'clippy.hasWorktrees');
});

afterAll(async () => {
  ext?.stop();
  await c?.close();
  await d?.stop();
});

beforeEach(() => {
  editor.clearRecords();
  editor.answers.quickPick = () => undefined;
});

/** The `vscode.changes` call: its title and each resource as [file, left text, right]. */
async function changesShown() {
  const call = editor.foreignCommandCalls.find((x) => x.id === 'vscode.changes');
  if (!call) throw new Error(`vscode.changes was not run (ran: ${editor.foreignCommands})`);
  const [title, resources] = call.args as [string, [Uri, Uri, Uri][]];
  const sides = await Promise.all(
    resources.map(async ([file, left, right]) => ({
      file: path.relative(worktree, file.fsPath),
      left: (await workspace.openTextDocument(left)).getText(),
      right:
        right.scheme === 'file'
          ? `file:${path.relative(worktree, right.fsPath)}`
          : (await workspace.openTextDocument(right)).getText(),
    })),
  );
  return { title, sides };
}

describe('Open Session Changes in Diff Editor', () => {
  it("shows each changed file as it was at the base beside the worktree's own file", async () => {
    const result = await run('clippy.diff', 'writer');
    expect(result).toEqual({
      title: `writer: clippy/writer against ${base.slice(0, 10)}`,
      files: ['docs/adding.md', 'notes.md', 'src/app.ts', 'src/util.ts'],
    });
    const { title, sides } = await changesShown();
    expect(title).toBe(`writer: clippy/writer against ${base.slice(0, 10)}`);
    expect(sides).toEqual([
      // A rename: the old path's base text beside the new file.
      { file: 'docs/adding.md', left: atBase('docs/guide.md'), right: 'file:docs/adding.md' },
      { file: 'notes.md', left: '', right: 'file:notes.md' },
      { file: 'src/app.ts', left: atBase('src/app.ts'), right: 'file:src/app.ts' },
      { file: 'src/util.ts', left: atBase('src/util.ts'), right: '' },
    ]);
    expect(atBase('src/app.ts')).toContain('return a + b;');
    await messageShown('info', /^clippy: 1 binary file of writer not shown: logo\.png$/);
  });

  it('from the view row, and from the palette with a picker of the sessions in worktrees only', async () => {
    await run('clippy.diff', await viewNode('writer'));
    expect((await changesShown()).sides).toHaveLength(4);
    editor.clearRecords();
    let offered: string[] = [];
    editor.answers.quickPick = (items) => {
      offered = items.map((i) => i.label);
      return items.find((i) => i.label === 'writer');
    };
    await run('clippy.diff');
    expect(offered.sort()).toEqual(['clean', 'writer']);
    expect((await changesShown()).sides).toHaveLength(4);
  });

  it('says so when there is nothing to show or no worktree', async () => {
    await run('clippy.diff', 'clean');
    await messageShown('info', /^clippy: clean has no changes on clippy\/clean against its base$/);
    expect(editor.foreignCommands).not.toContain('vscode.changes');
    await run('clippy.diff', 'plain');
    await messageShown('error', /^clippy: .*plain.*worktree/);
    expect(editor.foreignCommands).not.toContain('vscode.changes');
  });

  it('a base document that cannot be read says which file and why', async () => {
    await run('clippy.diff', 'writer');
    const call = editor.foreignCommandCalls.find((x) => x.id === 'vscode.changes')!;
    const left = (call.args[1] as [Uri, Uri, Uri][])[2]![1];
    const gone = workspace.openTextDocument(
      Object.assign(Object.create(Object.getPrototypeOf(left) as object) as Uri, left, {
        query: JSON.stringify({ worktree, commit: '0'.repeat(40), path: 'src/app.ts' }),
      }),
    );
    await expect(gone).rejects.toThrow(/^cannot read src\/app\.ts at 0000000000: fatal: /);
  });
});
