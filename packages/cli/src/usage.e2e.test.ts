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

  it('every whole-number option refuses what is not one, naming it and what was typed (exit 64, no daemon asked)', async () => {
    const cases: [string[], string][] = [
      [['turns', 's', '--limit', 'abc'], "--limit must be a whole number of 1 or more (got 'abc')"],
      [['turns', 's', '--limit', '0'], "--limit must be a whole number of 1 or more (got '0')"],
      [['turns', 's', '-n', '2.5'], "--limit must be a whole number of 1 or more (got '2.5')"],
      [
        ['history', 'search', 'x', '--limit', 'abc'],
        "--limit must be a whole number from 1 to 1000 (got 'abc')",
      ],
      [
        ['route', 'log', '--limit', '1e3'],
        "--limit must be a whole number from 1 to 10000 (got '1e3')",
      ],
      [
        ['route', 'add', 'a', 'b', '--hop-limit', 'ten'],
        "--hop-limit must be a whole number from 1 to 100 (got 'ten')",
      ],
      [
        ['loop', 'a', 'b', '--until', 'x', '--rounds', '1.5'],
        "--rounds must be a whole number from 1 to 1000 (got '1.5')",
      ],
      [
        ['replay', 'a', '--into', 'b', '--last', '0x10'],
        "--last must be a whole number from 1 to 1000 (got '0x10')",
      ],
      [['resize', 's', '--cols', '0'], "--cols must be a whole number from 1 to 1000 (got '0')"],
      [['web', '--port', '70000'], "--port must be a whole number from 0 to 65535 (got '70000')"],
      [['turns', 's', '--limit'], 'Not enough arguments following: limit'],
    ];
    const runs = await Promise.all(cases.map(([args]) => runClippy(args, env)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!;
      expect(run.stderr, args.join(' ')).toBe(
        `clippy: ${message}\nRun 'clippy --help' for usage.\n`,
      );
      expect(run.code, args.join(' ')).toBe(64);
    });
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
