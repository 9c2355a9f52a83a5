// The import-cycle check of `npm run lint` is only worth something if it fails on a cycle: each
// case writes a small package tree in a temporary folder and runs the check on it, as lint does.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { describeCycle, findCycles, staleKnown } from './import-cycles.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** Starting tsx and TypeScript's parser on a loaded 2-core machine takes seconds. */
const RUN_TIMEOUT_MS = 60_000;

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A repository holding `packages/x/src` with these files (path → text). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'clippy-cycles-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, 'packages', 'x', 'src', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return root;
}

function check(root: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'scripts', 'import-cycles.ts'), root],
      { cwd: repoRoot },
      (err, _stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stderr }),
    );
  });
}

describe('the import-cycle check in npm run lint', () => {
  it(
    'fails on two folders that import each other, naming the imports',
    async () => {
      // No two files import each other: the folders do.
      const root = tree({
        'a/one.ts': "import { two } from '../b/two.js';\nexport const one = () => two;\n",
        'a/three.ts': 'export const three = 3;\n',
        'b/two.ts': 'export const two = 2;\n',
        'b/four.ts': "export { three } from '../a/three.js';\n",
      });
      const { code, stderr } = await check(root);
      expect(code).toBe(1);
      expect(stderr).toContain('packages/x/src: a/ ⇄ b/');
      expect(stderr).toContain('a/one.ts → b/two.ts');
      expect(stderr).toContain('b/four.ts → a/three.ts');
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'passes a tree whose folders import one way only',
    async () => {
      const root = tree({
        'a/one.ts': "import { two } from '../b/two.js';\nexport const one = () => two;\n",
        'b/two.ts': "import type { One } from '../a/types.js';\nexport const two: One = 2;\n",
        'a/types.ts': 'export type One = number;\n',
        'b/two.test.ts': "import { one } from '../a/one.js';\nexport const t = one;\n",
      });
      expect(await check(root)).toEqual({ code: 0, stderr: '' });
    },
    RUN_TIMEOUT_MS,
  );

  it('sees re-exports, import() and type imports that still load the module', () => {
    const cycles = findCycles(
      tree({
        'a/one.ts': "export * from '../b/two.js';\n",
        'b/two.ts': "export const load = () => import('../c/three.js');\n",
        // Not `import type`: the module is still loaded (verbatimModuleSyntax keeps `import {}`).
        'c/three.ts': "import { type One } from '../a/one.js';\nexport const x: One = 1;\n",
      }),
    );
    expect(cycles.map(describeCycle)).toEqual([
      'packages/x/src: a/ ⇄ b/ ⇄ c/\n' +
        '    a/one.ts → b/two.ts\n' +
        '    b/two.ts → c/three.ts\n' +
        '    c/three.ts → a/one.ts',
    ]);
  });

  it('names a known cycle that is gone, so that the list of known ones cannot go stale', () => {
    const root = tree({
      'a/one.ts': "import { two } from '../b/two.js';\nexport const one = () => two;\n",
      'b/two.ts': "import { one } from '../a/one.js';\nexport const two = () => one;\n",
      'c/three.ts': 'export const three = 3;\n',
    });
    const known = {
      'packages/x/src': [
        ['a/', 'b/'],
        ['b/', 'c/'],
      ],
      // A package this tree does not have: not this tree's to judge.
      'packages/y/src': [['d/', 'e/']],
    };
    expect(staleKnown(root, findCycles(root), known)).toEqual(['packages/x/src: b/ ⇄ c/']);
  });

  it("checks every level: files side by side, folders inside folders, and lets files use their parent's", () => {
    const cycles = findCycles(
      tree({
        'relay/routes/route.ts': "import { loop } from './loop.js';\nexport const r = loop;\n",
        'relay/routes/loop.ts': "import { r } from './route.js';\nexport const loop = () => r;\n",
        'agents/registry.ts':
          "import { claude } from './claude/index.js';\nexport const a = claude;\n",
        'agents/records.ts': 'export const records = 1;\n',
        'agents/claude/index.ts':
          "import { records } from '../records.js';\nexport const claude = records;\n",
      }),
    );
    expect(cycles.map((c) => [c.level, c.members])).toEqual([
      ['relay/routes', ['loop.ts', 'route.ts']],
    ]);
  });
});
