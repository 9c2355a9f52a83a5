import { execFileSync } from 'node:child_process';
import { chmodSync, renameSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo } from '@clippy/protocol';
import { CliPty } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, git, gitOwnDiff, makeRepo, writeFiles } from '@clippy/testkit/git';
import { bins } from '@clippy/testkit/paths';

// `clippy diff S` runs git itself where the session's worktree is on this machine (issue 37):
// what it prints must be what git prints for the same change, and what the daemon's `diff`
// says (the path a remote session's diff takes), to the byte; coloured as git colours it on a
// terminal, plain in a pipe or with NO_COLOR.

let d: TestDaemon;
let c: ClippyClient;
let worktree: string;
let base: string;

/** The built clippy in a pipe: its stdout, byte for byte (it must exit 0). */
function clippyOut(args: string[], env: NodeJS.ProcessEnv = d.env.env): string {
  return execFileSync(process.execPath, [bins.clippy, ...args], {
    env,
    encoding: 'latin1',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

beforeAll(async () => {
  d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
  c = await d.connect();
  const repo = makeRepo(path.join(d.env.root, 'repo'), {
    'src/calc.c':
      'int add(int a, int b) {\n  int s = a;\n  s += b;\n  s += 0;\n  s += 0;\n  return s;\n}\n',
    'src/old name.ts': 'export const moved = true;\n',
    'notes.txt': 'one\ntwo\n',
    'tail.txt': 'end\n',
    'logo.bin': Buffer.from([0, 1, 2, 3]),
    'run.sh': 'echo hi\n',
    'crlf.txt': 'a\r\nb\r\n',
    'odd "quoted" näme.txt': 'odd\n',
  });
  clippyOut(['new', '-d', '--cwd', repo, '--worktree', 'work', '--', 'sleep', '600']);
  const { sessions } = await c.request('list_sessions', {});
  const w = (sessions as SessionInfo[]).find((s) => s.name === 'work')!.worktree!;
  worktree = w.path;
  base = w.base;
  // A commit on the branch, then an agent's uncommitted work of every kind.
  writeFiles(worktree, { 'README.md': '# demo\n\nChanged and committed.\n' });
  git(worktree, ['commit', '--quiet', '-am', 'readme']);
  writeFiles(worktree, {
    // A function's name in the hunk header, trailing whitespace, a space before a tab.
    'src/calc.c':
      'int add(int a, int b) {\n  int s = a;\n  s += b;\n  s += 0;\n  s += 0;  \n \treturn s;\n}\n',
    'notes.txt': 'one\ntwo\nthree', // no newline at the end
    'tail.txt': 'end\n\n\n', // blank lines added at the end
    'logo.bin': Buffer.from([0, 1, 2, 4]),
    'crlf.txt': 'a\r\nB\r\n',
    'new file.md': '# new\n\nwith a space in its name \n',
    'pkg/fresh.ts': 'export const fresh = 1;\nexport const blank = 2;\n\n',
    'pkg/raw.bin': Buffer.from([0, 9, 9]),
    'odd "quoted" näme.txt': 'odd\nnew\tline\n',
    'pkg/tab\tname.txt': 'tabbed\n',
  });
  symlinkSync('fresh.ts', path.join(worktree, 'pkg/link'));
  chmodSync(path.join(worktree, 'run.sh'), 0o755);
  git(worktree, ['rm', '--quiet', 'src/util.ts']);
  // Moved by hand, no `git mv`: shown as a rename, as git shows it once both are staged.
  renameSync(path.join(worktree, 'src/old name.ts'), path.join(worktree, 'src/new name.ts'));
}, 120_000);

afterAll(async () => {
  await c?.close();
  await d?.stop();
});

describe('clippy diff S on this machine', { timeout: 120_000 }, () => {
  it('prints what git prints for the same change, and what the daemon says, to the byte', async () => {
    const printed = clippyOut(['diff', 'work']);
    // git's own diff of everything staged in a copy of the index (the worktree's is untouched).
    expect(printed).toBe(Buffer.from(gitOwnDiff(worktree, base)).toString('latin1'));
    const fromDaemon = await c.request('diff', { session: 'work', detail: 'text' });
    expect(printed).toBe(Buffer.from(fromDaemon.text!).toString('latin1'));
    // Only some files: the same again.
    const some = clippyOut(['diff', 'work', 'pkg/fresh.ts', 'src/calc.c']);
    expect(some).toBe(
      Buffer.from(
        (
          await c.request('diff', {
            session: 'work',
            detail: 'text',
            paths: ['pkg/fresh.ts', 'src/calc.c'],
          })
        ).text!,
      ).toString('latin1'),
    );
    expect(some).toMatch(/^diff --git a\/pkg\/fresh.ts b\/pkg\/fresh.ts\n/u);
    // A pipe with NO_COLOR or not: no colour.
    expect(clippyOut(['diff', 'work'], { ...d.env.env, NO_COLOR: '1' })).toBe(printed);
  });

  it('colours it on a terminal as git colours it (none with NO_COLOR)', async () => {
    // A terminal gets each "\n" as "\r\n" (a CRLF file's "\r\n" as "\r\r\n"): undone.
    const onTerminal = async (env: NodeJS.ProcessEnv) => {
      const t = CliPty.clippy(['diff', 'work'], { env, cwd: worktree });
      try {
        expect(await t.waitExit()).toBe(0);
        return t.output.replace(/\r\n/gu, '\n');
      } finally {
        await t.dispose();
      }
    };
    const coloured = await onTerminal(d.env.env);
    expect(coloured).toContain('\x1b[32m+\x1b[m\x1b[32m  s += 0;\x1b[m\x1b[41m  \x1b[m');
    // Trailing blank lines added to a file: git marks them (it sees both whole files).
    expect(coloured).toContain('\x1b[41m+\x1b[m\n\x1b[41m+\x1b[m\n');
    expect(coloured).toBe(gitOwnDiff(worktree, base, ['--color=always']));
    expect(await onTerminal({ ...d.env.env, NO_COLOR: '1' })).toBe(gitOwnDiff(worktree, base));
  });

  it('asks the daemon when the worktree is not where it says: it is gone', async () => {
    const kept = `${worktree}.kept`;
    renameSync(worktree, kept);
    try {
      expect(() => clippyOut(['diff', 'work'])).toThrow(
        `clippy: the worktree ${worktree} is gone (removed outside clippy); its branch clippy/work may still be there (no_worktree)`,
      );
    } finally {
      renameSync(kept, worktree);
    }
  });
});
