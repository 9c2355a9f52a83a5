import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';

// A bad command line is refused before any command runs: no daemon is started or contacted.
const dir = mkdtempSync(join(tmpdir(), 'clippy-usage-'));
const env = { ...process.env, XDG_RUNTIME_DIR: dir, CLIPPYD_PATH: '/nonexistent/clippyd.js' };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('command-line errors', () => {
  it('an unknown option exits 64 and the command does not run', async () => {
    const run = await runClippy(['ls', '--bogus'], env);
    expect(run.code).toBe(64);
    expect(run.stderr).toBe("clippy: Unknown argument: bogus\nRun 'clippy --help' for usage.\n");
    expect(run.stdout).toBe('');
  });

  it('an unknown command is named, with a suggestion', async () => {
    const run = await runClippy(['shwo'], env);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("unknown command 'shwo'. Did you mean show?");
  });

  it('no command at all asks for one', async () => {
    const run = await runClippy([], env);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('Name a command');
  });

  it('a navigate goal that begins with "-" is the goal, not an option', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'clippy-goal-'));
    try {
      writeFileSync(join(repo, 'tool.ts'), 'export function newTool() { return 1; }\n');
      const run = await runClippy(
        [
          'navigate',
          repo,
          '--goal',
          '- add new tool() api',
          '--planner',
          'offline',
          '-q',
          '--no-copy',
        ],
        env,
      );
      expect(run.stderr).not.toContain('Unknown argument');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('tool.ts');
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
