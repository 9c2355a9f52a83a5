import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateMap, indexRepository, renderMap } from '../src/index.js';
import { processFile } from '../src/process-file.js';
import { makeFixtureRepo, removeDir } from './fixture.js';

let repo: string;
beforeEach(() => {
  repo = makeFixtureRepo();
});
afterEach(() => removeDir(repo));

describe('bad input', () => {
  it('lists huge and minified files at L1 and still maps the rest', async () => {
    fs.writeFileSync(path.join(repo, 'big.txt'), 'x'.repeat(200_000));
    fs.writeFileSync(path.join(repo, 'lib/bundle.min.js'), `var a=1;${'a+=1;'.repeat(5000)}\n`);
    const index = await indexRepository({ root: repo, cache: false, maxFileBytes: 100_000 });
    const big = index.files.find((f) => f.path === 'big.txt')!;
    expect(big.maxLevel).toBe(1);
    expect(big.error).toMatch(/cap/);
    const min = index.files.find((f) => f.path === 'lib/bundle.min.js')!;
    expect(min.maxLevel).toBe(1);
    expect(min.error).toMatch(/minified/);
    const r = await renderMap(index, { budget: 100_000, verbosity: [{ pattern: '**', level: 4 }] });
    expect(r.files.find((f) => f.path === 'big.txt')!.level).toBe(1);
    expect(r.output).toContain('## src/auth/session.ts (L4)');
  });

  it('maps files with invalid UTF-8 and syntax errors, with a warning', async () => {
    fs.writeFileSync(
      path.join(repo, 'src/latin1.ts'),
      Buffer.from('// caf\xe9\nexport function ok() {}\n', 'latin1'),
    );
    fs.writeFileSync(
      path.join(repo, 'src/broken.ts'),
      'export function broken( {\n  return ;;\n}\nexport class Fine {}\n',
    );
    const index = await indexRepository({ root: repo, cache: false });
    const latin = index.files.find((f) => f.path === 'src/latin1.ts')!;
    expect(latin.error).toMatch(/invalid UTF-8/);
    expect(latin.tags.some((t) => t.name === 'ok')).toBe(true);
    expect(index.warnings.join('\n')).toMatch(/src\/latin1\.ts: invalid UTF-8/);
    expect(index.warnings.join('\n')).toMatch(/syntax errors.*src\/broken\.ts/);
    const r = await renderMap(index, { budget: 100_000 });
    expect(r.output).toContain('src/broken.ts');
  });

  it('reports binary files as absent, and refuses a missing root or a bad budget', async () => {
    const index = await indexRepository({ root: repo, cache: false });
    expect(index.files.some((f) => f.path === 'assets/logo.png')).toBe(false);
    await expect(indexRepository({ root: path.join(repo, 'nope') })).rejects.toThrow(
      /no such directory/,
    );
    await expect(generateMap({ root: repo, cache: false, budget: 0 })).rejects.toThrow(/budget/);
    await expect(generateMap({ root: repo, cache: false, budget: -3 })).rejects.toThrow(/budget/);
  });

  it('lists a file that cannot be read (gone or forbidden) at L1 with a warning', async () => {
    const r = await processFile(
      { abs: path.join(repo, 'vanished.ts'), rel: 'vanished.ts', size: 10 },
      1 << 20,
    );
    expect(r.file?.maxLevel).toBe(1);
    expect(r.file?.error).toMatch(/unreadable \(ENOENT\)/);
    expect(r.warning).toBe('cannot read vanished.ts: ENOENT');
  });
});
