import { describe, expect, it } from 'vitest';
import { coloredPatch } from './diff.js';

describe('clippy diff colours a patch as git does', () => {
  it('meta bold, hunk headers cyan, added green, removed red; a file header after a hunk is meta again', () => {
    const patch = [
      'diff --git a/a.ts b/a.ts',
      'index 1111111..2222222 100644',
      '--- a/a.ts',
      '+++ b/a.ts',
      '@@ -1,2 +1,2 @@',
      ' same',
      '-old',
      '+new',
      '\\ No newline at end of file',
      'diff --git a/b.bin b/b.bin',
      'Binary files a/b.bin and b/b.bin differ',
      '',
    ].join('\n');
    expect(coloredPatch(patch).split('\n')).toEqual([
      '\x1b[1mdiff --git a/a.ts b/a.ts\x1b[m',
      '\x1b[1mindex 1111111..2222222 100644\x1b[m',
      '\x1b[1m--- a/a.ts\x1b[m',
      '\x1b[1m+++ b/a.ts\x1b[m',
      '\x1b[36m@@ -1,2 +1,2 @@\x1b[m',
      ' same',
      '\x1b[31m-old\x1b[m',
      '\x1b[32m+new\x1b[m',
      '\\ No newline at end of file',
      '\x1b[1mdiff --git a/b.bin b/b.bin\x1b[m',
      '\x1b[1mBinary files a/b.bin and b/b.bin differ\x1b[m',
      '',
    ]);
  });
});
