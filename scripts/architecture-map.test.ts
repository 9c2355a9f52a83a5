// docs/architecture.md is the map of the code only while it is true: its table of the daemon's
// folders must name every folder of packages/broker/src, and nothing that is not there. A folder
// added or moved without a line on the map fails here, naming it.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const brokerSrc = join(repoRoot, 'packages', 'broker', 'src');

/** Folders of test code, not part of the daemon's map. */
const TEST_FOLDERS = new Set(['test-support', 'fixtures']);

/** The folders (`x/`, `x/y/`) in the first column of the table under `heading`. */
function mappedFolders(heading: string): string[] {
  const page = readFileSync(join(repoRoot, 'docs', 'architecture.md'), 'utf8');
  const start = page.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no section ${heading}`);
  const next = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^\| `([\w-]+(?:\/[\w-]+)*\/)` +\|/gmu)].map((m) => m[1]!);
}

describe('docs/architecture.md', () => {
  it("names every folder of the daemon's src, and only those", () => {
    const mapped = mappedFolders("## The daemon's folders");
    const present = readdirSync(brokerSrc, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !TEST_FOLDERS.has(e.name))
      .map((e) => `${e.name}/`);
    expect(
      present.filter((f) => !mapped.includes(f)).sort(),
      'folders missing from the map',
    ).toEqual([]);
    expect(
      mapped.filter((f) => !existsSync(join(brokerSrc, f))).sort(),
      'folders on the map that are gone',
    ).toEqual([]);
  });
});
