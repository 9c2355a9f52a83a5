import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCommand } from './resolve-command.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('resolveCommand', () => {
  it('finds programs in PATH and explains failures', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clippy-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'tool'), '#!/bin/sh\n');
    chmodSync(join(dir, 'bin', 'tool'), 0o755);
    writeFileSync(join(dir, 'bin', 'noexec'), 'x');
    expect(resolveCommand('tool', dir, join(dir, 'bin'))).toEqual({
      ok: true,
      path: join(dir, 'bin', 'tool'),
    });
    expect(resolveCommand('./bin/tool', dir, '')).toEqual({
      ok: true,
      path: join(dir, 'bin', 'tool'),
    });
    const missing = resolveCommand('nothere', dir, join(dir, 'bin'));
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.message).toContain('not found in PATH');
    const noexec = resolveCommand('noexec', dir, join(dir, 'bin'));
    expect(!noexec.ok && noexec.message).toContain('not executable');
    const noPath = resolveCommand('sh', dir, undefined);
    expect(!noPath.ok && noPath.message).toContain('no PATH');
    const isDir = resolveCommand('./bin', dir, '');
    expect(!isDir.ok && isDir.message).toContain('directory');
  });
});
