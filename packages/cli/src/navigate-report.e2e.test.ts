import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RunReportSchema } from '@clippy/reports';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DESKTOP_VARS, OUTSIDE_SERVICE_VARS, envWithout } from '@clippy/testkit/env';
import { repoRoot } from '@clippy/testkit/paths';

// End-to-end: the real `clippy navigate` (needs `npm run build`) with the offline planner. The
// run report is a file beside the output, like --flight-plan: the context still goes to stdout.

/** One offline navigator run over the small fixture app, on a loaded 2-core CI box. */
const RUN_TIMEOUT_MS = 60_000;

const appRoot = path.join(repoRoot, 'packages', 'navigator', 'test', 'fixtures', 'app');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** No key (the offline planner), no display (never the user's clipboard), no broker. */
function isolatedEnv(dir: string): NodeJS.ProcessEnv {
  return {
    ...envWithout(process.env, OUTSIDE_SERVICE_VARS, DESKTOP_VARS),
    XDG_RUNTIME_DIR: dir,
    XDG_CONFIG_HOME: dir,
  };
}

describe('clippy navigate --report', { timeout: RUN_TIMEOUT_MS }, () => {
  it('writes the run report and still prints the context on stdout (and -o still takes it)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-nav-'));
    dirs.push(dir);
    const env = isolatedEnv(dir);
    const file = path.join(dir, 'run.json');
    const args = [
      'navigate',
      appRoot,
      '--goal',
      'fix the token refresh bug in auth',
      '--budget',
      '3000',
      '--planner',
      'offline',
      '--quiet',
      '--no-copy',
      '--report',
      file,
    ];
    const r = await runClippy(args, env, RUN_TIMEOUT_MS);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(report.result.answer).toMatch(/^# Context: fix the token refresh bug in auth/);
    expect(r.stdout).toBe(report.result.answer);

    const out = path.join(dir, 'context.md');
    const toFile = await runClippy([...args, '-o', out], env, RUN_TIMEOUT_MS);
    expect(toFile.code).toBe(0);
    expect(toFile.stdout).toBe('');
    const again = RunReportSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(fs.readFileSync(out, 'utf8')).toBe(again.result.answer);
  });

  it('--help says where the context and the report go', async () => {
    const r = await runClippy(['navigate', '--help'], { ...process.env, COLUMNS: '200' });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'write a run report (JSON) to FILE as well (the context still goes to stdout or -o FILE)',
    );
  });
});
