import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../src/index.js';
import { makeFixtureRepo, removeDir, REPO_ROOT } from './fixture.js';
import { buildMissing } from '@clippy/testkit/requirements';

// Runs the built CLI (`npm run build` first, as CI does). CLIPPY_TEST_CLI may name another
// entry (e.g. "npx tsx packages/cli/src/main.ts") to run it from sources.
const BIN = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'clippy.js');
const OVERRIDE = process.env.CLIPPY_TEST_CLI?.split(' ');
/** The built CLI is there (`unavailable` says so when not: a failure in CI). */
const BIN_BUILT =
  buildMissing(path.join(REPO_ROOT, 'packages', 'cli', 'dist', 'commands', 'map.js')) === null;
const BUILT = OVERRIDE !== undefined || BIN_BUILT;
/** Each test spawns the CLI several times; a loaded CI machine needs room. */
const CLI_TEST_TIMEOUT_MS = 90_000;

let repo: string;
let tmp: string;
beforeAll(() => {
  repo = makeFixtureRepo();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-cli-'));
});
afterAll(() => {
  removeDir(repo);
  removeDir(tmp);
});

function clippy(args: string[], env: NodeJS.ProcessEnv = {}) {
  const [cmd, ...pre] = OVERRIDE ?? [process.execPath, BIN];
  const r = spawnSync(cmd!, [...pre, 'map', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: path.join(tmp, 'cache'), ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!BUILT)('clippy map (built CLI)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('prints a map within budget, focused, and byte-identical on a warm re-run', () => {
    const a = clippy([repo, '--budget', '600', '--focus', 'src/auth']);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/^# Repository map\n\nFiles: \d+ · Tokens: \d+ \/ 600/);
    expect(countTokens(a.stdout)).toBeLessThanOrEqual(600);
    expect(a.stdout.indexOf('src/auth/')).toBeLessThan(a.stdout.indexOf('src/util/'));
    const b = clippy([repo, '--budget', '600', '--focus', 'src/auth']);
    expect(b.stdout).toBe(a.stdout);
  });

  it('exits 2 for an invalid plan, naming file, line and field', () => {
    const plan = path.join(tmp, 'bad.yaml');
    fs.writeFileSync(plan, 'budget: 100\nverbosity:\n  - pattern: src\n    levle: 2\n');
    const r = clippy([repo, '--plan', plan]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${plan}:4: unknown key "levle" (field verbosity[0].levle)`);
    expect(clippy([repo, '--budget', '0']).code).toBe(2);
    expect(clippy([repo, '-v', 'src:9']).code).toBe(2);
  });

  it('exits 3 when the plan file does not exist', () => {
    const r = clippy([repo, '--plan', path.join(tmp, 'missing.yaml')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/flight plan not found/);
  });

  it('exits 4 with --strict when a plan puts the map over budget, listing top contributors', () => {
    const plan = path.join(tmp, 'big.yaml');
    fs.writeFileSync(plan, 'budget: 200\nverbosity:\n  - {pattern: "**", level: 4}\n');
    const strict = clippy([repo, '--plan', plan, '--strict']);
    expect(strict.code).toBe(4);
    expect(strict.stderr).toMatch(/over budget: \d+\/200 tokens/);
    expect(strict.stderr).toContain('src/auth/session.ts (L4)');
    expect(strict.stdout).toBe('');
    const lax = clippy([repo, '--plan', plan]);
    expect(lax.code).toBe(0);
    expect(lax.stdout).toContain('OVER BUDGET');
    // Command-line options override the plan.
    const over = clippy([
      repo,
      '--plan',
      plan,
      '--budget',
      '100000',
      '--strict',
      '--format',
      'json',
    ]);
    expect(over.code).toBe(0);
    expect(JSON.parse(over.stdout).budget).toBe(100000);
  });

  it('writes --output, lists --summary and --show-costs, and copies with the first clipboard found', () => {
    const out = path.join(tmp, 'map.xml');
    const r = clippy([repo, '--format', 'xml', '--output', out, '-v', '**:2']);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^<repomap files="\d+"/);
    const s = clippy([repo, '--summary', '--budget', '400']);
    expect(s.stdout).toMatch(/^- README\.md \(L\d, \d+ tokens\)$/m);
    const c = clippy([repo, '--show-costs']);
    expect(c.stdout).toMatch(/^\| src\/auth\/session\.ts \| L\d \| \d+ \| \d+ \| \d+ \| \d+ \|$/m);
    // A fake xclip on PATH receives the map on stdin.
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    const sink = path.join(tmp, 'clipboard.txt');
    fs.writeFileSync(path.join(bin, 'xclip'), `#!/bin/sh\ncat > ${JSON.stringify(sink)}\n`, {
      mode: 0o755,
    });
    const copy = clippy([repo, '--copy', '--budget', '300'], {
      PATH: `${bin}:${process.env.PATH}`,
      DISPLAY: ':99',
      WAYLAND_DISPLAY: '',
    });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr).toContain('copied the map to the clipboard (xclip)');
    expect(fs.readFileSync(sink, 'utf8')).toMatch(/^# Repository map/);
    // No clipboard at all and no terminal: a clear error, and the map still on stdout.
    const none = clippy([repo, '--copy', '--budget', '300'], {
      PATH: path.dirname(process.execPath),
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no clipboard available/);
    expect(none.stdout).toMatch(/^# Repository map/);
  });
});

// Runs the built bin itself on a PTY (CLIPPY_TEST_CLI does not apply): needs the build.
describe.skipIf(!BIN_BUILT)(
  'clippy map progress (built CLI, real PTY)',
  { timeout: CLI_TEST_TIMEOUT_MS },
  () => {
    it('draws a progress bar on a terminal and prints nothing extra when piped', async () => {
      const pty = await import('node-pty');
      const env = {
        ...process.env,
        XDG_CACHE_HOME: path.join(tmp, 'cache-pty'),
        CLIPPY_PROGRESS_DELAY_MS: '0',
      } as Record<string, string>;
      const out = path.join(tmp, 'pty-map.md');
      const term = pty.spawn(process.execPath, [BIN, 'map', repo, '--no-cache', '-o', out], {
        cols: 120,
        rows: 30,
        cwd: REPO_ROOT,
        env,
      });
      let screen = '';
      term.onData((d) => (screen += d));
      const code = await new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
      expect(code, screen).toBe(0);
      expect(screen).toMatch(/parsing [█░]+ \d+\/\d+ files/);
      expect(fs.readFileSync(out, 'utf8')).toMatch(/^# Repository map/);
      const piped = clippy([repo, '--no-cache', '-o', out], { CLIPPY_PROGRESS_DELAY_MS: '0' });
      expect(piped.code).toBe(0);
      expect(piped.stderr).not.toMatch(/parsing/);
    });
  },
);
