import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { repoRoot } from '@clippy/testkit/paths';
import { BUILTIN_PRESETS } from '@clippy/turns';

// The built `clippy classify` on the real agents' first-run dialogs (captured with tmux, see
// packages/turns/test/screens/README.md), read from stdin as `clippy classify < screen.txt`.
const SCREENS = join(repoRoot, 'packages', 'turns', 'test', 'screens');
const dir = mkdtempSync(join(tmpdir(), 'clippy-classify-'));
// No user presets.json: the built-in presets decide.
const env = { ...process.env, XDG_RUNTIME_DIR: dir, XDG_CONFIG_HOME: dir };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DIALOGS = [
  ['gemini', 'gemini-trust-folder.txt'],
  ['gemini', 'gemini-auth.txt'],
  ['gemini', 'gemini-api-key.ansi.txt'],
  ['codex', 'codex-api-key.txt'],
  ['codex', 'codex-trust.ansi.txt'],
  ['claude', 'claude-login-method.txt'],
] as const;

describe('clippy classify on real first-run dialogs', () => {
  for (const [preset, file] of DIALOGS) {
    it(`--preset ${preset} --explain < ${file}: blocked, naming the blocked marker`, async () => {
      const run = await runClippy(
        ['classify', '--preset', preset, '--explain'],
        env,
        undefined,
        readFileSync(join(SCREENS, file)),
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const [state, presetLine, reason, marker, line] = run.stdout.trimEnd().split('\n');
      expect(state).toBe('blocked');
      expect(presetLine).toBe(`preset: ${preset} (screen)`);
      expect(reason).toMatch(/^reason: question marker on line \d+/u);
      expect(BUILTIN_PRESETS[preset]!.blocked).toContain(marker!.replace(/^marker: /u, ''));
      expect(line).toMatch(/^line: \d+$/u);
    });
  }

  it('--preset gemini on the Gemini CLI 0.61 input screen: idle', async () => {
    const run = await runClippy(
      ['classify', '--preset', 'gemini'],
      env,
      undefined,
      readFileSync(join(SCREENS, 'gemini-idle.txt')),
    );
    expect([run.code, run.stdout]).toEqual([0, 'idle\n']);
  });
});
