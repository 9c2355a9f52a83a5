import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, writeFiles } from '@clippy/testkit/git';
import { coloredPatch } from './diff-color.js';

// What clippy colours itself (new files, a moved file, a patch from a daemon on another host)
// must be what git would print: compared with real git's own colours, byte for byte.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'clippy-diff-color-'));
  git(dir, ['init', '--quiet', '--initial-branch=main']);
  writeFiles(dir, {
    'calc.c':
      'int add(int a, int b) {\n  int s = a;\n  s += b;\n  s += 0;\n  s += 0;\n  return s;\n}\n',
    'notes.txt': 'one\ntwo\n',
    'logo.bin': Buffer.from([0, 1, 2]),
    'crlf.txt': 'a\r\nb\r\n',
    'old name.txt': 'moved\n',
    'mode.sh': 'echo\n',
  });
  git(dir, ['add', '-A']);
  git(dir, ['commit', '--quiet', '-m', 'first']);
  writeFiles(dir, {
    // A function in the hunk header; trailing whitespace; a space before a tab; spaces only.
    'calc.c':
      'int add(int a, int b) {\n  int s = a;\n  s += b;\n  s += 0;\n  s += 0;\t \n \t return s;\n   \n}\n',
    'notes.txt': 'one\nTWO\r\n\nthree', // a CR, an empty line, no newline at the end
    'logo.bin': Buffer.from([0, 1, 3]),
    'crlf.txt': 'a\r\nB \r\n',
    'new file.md': '# new \n\n\ttabbed\n', // a space in its name: a tab ends its +++ line
    'fresh.txt': 'x\n\n\n', // new, blank lines at its end: git marks none in a new file
  });
  chmodSync(path.join(dir, 'mode.sh'), 0o755);
  git(dir, ['mv', 'old name.txt', 'new name.txt']);
  git(dir, ['add', '--intent-to-add', 'new file.md', 'fresh.txt']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('clippy diff colours a patch as git does', () => {
  it('meta bold, ranges cyan, functions plain, removed red, added green, whitespace errors marked', () => {
    const args = ['diff', 'HEAD', '--find-renames'];
    const plain = git(dir, [...args, '--no-color']);
    const coloured = git(dir, [...args, '--color=always']);
    expect(coloured).toMatch(
      /\x1b\[36m@@ [^@]+ @@\x1b\[m \x1b\[mint add\(int a, int b\) \{\x1b\[m\n/u,
    );
    expect(coloredPatch(plain)).toBe(coloured);
  });
});
