import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffPatchLines } from './diff-text.js';
import { newFilePaths, readNewFiles } from './new-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('new files (what git does not track yet)', () => {
  it('reads each as git would add it: mode, blob ID, patch; skips what git would not add', async () => {
    const top = mkdtempSync(join(tmpdir(), 'clippy-new-files-'));
    dirs.push(top);
    writeFileSync(join(top, 'a.txt'), 'one\ntwo\n');
    writeFileSync(join(top, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(top, 'run.sh'), 0o755);
    symlinkSync('a.txt', join(top, 'link'));
    execFileSync('mkfifo', [join(top, 'pipe')]);
    const files = await readNewFiles(top, ['a.txt', 'run.sh', 'link', 'pipe', 'gone'], 'sha1');
    expect(files.map((f) => [f.path, f.mode])).toEqual([
      ['a.txt', '100644'],
      ['run.sh', '100755'],
      ['link', '120000'],
    ]);
    // The blob ID git itself computes for the same bytes.
    execFileSync('git', ['init', '-q', top]);
    const gitId = execFileSync('git', ['hash-object', 'a.txt'], { cwd: top, encoding: 'utf8' });
    expect(files[0]!.id).toBe(gitId.trim());
    expect(diffPatchLines([files[0]!.diff])).toEqual([
      'diff --git a/a.txt b/a.txt',
      'new file mode 100644',
      `index 0000000..${gitId.slice(0, 7)}`,
      '--- /dev/null',
      '+++ b/a.txt',
      '@@ -0,0 +1,2 @@',
      '+one',
      '+two',
    ]);
  });

  it("lists the files of ls-files' output, not the folders of nested repositories", () => {
    expect(newFilePaths(Buffer.from('a.txt\0sub/repo/\0b c\0'))).toEqual(['a.txt', 'b c']);
  });
});
