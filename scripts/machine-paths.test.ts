// No file of the repository names a path of the machine it was written on: the folder this
// checkout sits in (its parent) is this machine's, and a clone elsewhere has another. Comments
// point into the repository; fixtures use neutral paths (`/home/user/…`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** Files that carry no text to look into. */
const BINARY = /\.(png|jpe?g|gif|ico|wasm|woff2?|gz|zip|vsix)$/u;

const parent = dirname(repoRoot.replace(/[\\/]+$/u, ''));

describe('paths of this machine', () => {
  // A checkout at the root of the file system has no folder of its own to look for.
  it.runIf(parent !== sep)(`appear in no tracked file (${parent}${sep}…)`, () => {
    const needle = parent + sep;
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '' && !BINARY.test(f));
    const named = files.filter((f) => {
      try {
        return readFileSync(join(repoRoot, f), 'utf8').includes(needle);
      } catch {
        return false; // listed but gone from the work tree (being deleted)
      }
    });
    expect(named, `files naming ${needle}`).toEqual([]);
  });
});
