import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@clippy/testkit/paths';

// The README's advice: "put `packages/cli/bin` on your PATH", then run `clippy` by name.
const binDir = path.join(repoRoot, 'packages', 'cli', 'bin');
const { version } = JSON.parse(
  fs.readFileSync(path.join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8'),
) as { version: string };
/** Only system folders and node's own beside the folder under test: no other `clippy` is found. */
const basePath = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function viaShell(line: string, pathVar: string): { code: number | null; out: string } {
  const r = spawnSync('/bin/sh', ['-c', line], {
    env: { ...process.env, PATH: pathVar },
    encoding: 'utf8',
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('clippy on PATH', () => {
  it('packages/cli/bin on PATH runs `clippy` by name', () => {
    const r = viaShell('command -v clippy && clippy --version', `${binDir}:${basePath}`);
    expect(r.out).toBe(`${path.join(binDir, 'clippy')}\n${version}\n`);
    expect(r.code).toBe(0);
  });

  it('a symlink to packages/cli/bin/clippy works too (e.g. in ~/.local/bin)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-bin-'));
    dirs.push(dir);
    fs.symlinkSync(path.join(binDir, 'clippy'), path.join(dir, 'clippy'));
    const r = viaShell('clippy --version', `${dir}:${basePath}`);
    expect(r.out).toBe(`${version}\n`);
    expect(r.code).toBe(0);
  });
});
