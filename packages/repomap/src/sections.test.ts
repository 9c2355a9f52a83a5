import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateMap } from './generate.js';
import { parseFlightPlan } from './plan.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A small repository: a README with sections and a few code files. */
function repo(): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repomap-sections-'));
  fs.writeFileSync(
    path.join(dir, 'README.md'),
    '# Demo\n\nIntro text.\n\n## Quickstart\n\nRun the quickstart command here.\n\n## Other\n\nOther text.\n',
  );
  for (let i = 1; i <= 3; i++)
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `export function f${i}() { return ${i}; }\n`);
  return dir;
}

describe('section rules', () => {
  it('show their sections on a file at L1 (a sections-only rule)', async () => {
    const root = repo();
    const plan = parseFlightPlan(
      'verbosity:\n  - pattern: "**"\n    level: 1\n  - pattern: README.md\n    sections: [{pattern: "Quickstart*", level: 4}]\n',
    );
    const map = await generateMap({ root, cache: false, plan, budget: 20_000 });
    expect(map.files.find((f) => f.path === 'README.md')?.level).toBe(1);
    expect(map.output).toContain('Run the quickstart command here.');
    expect(map.output).not.toContain('Other text.');
    expect(map.output).not.toContain('Intro text.');
  });
});
