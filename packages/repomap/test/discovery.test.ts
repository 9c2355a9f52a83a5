import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverFiles } from '../src/discovery.js';
import { makeFixtureRepo, removeDir } from './fixture.js';

let repo: string;
beforeAll(() => {
  repo = makeFixtureRepo();
});
afterAll(() => removeDir(repo));

const paths = (opts: { include?: string[]; exclude?: string[] } = {}) =>
  discoverFiles({ root: repo, ...opts }).map((f) => f.path);

describe('discovery', () => {
  it('honours root and nested .gitignore files, negations, .ignore and .clippyignore', () => {
    const found = paths();
    expect(found).not.toContain('app.log');
    expect(found).not.toContain('secret/password.txt');
    expect(found).toContain('secret/keep.txt'); // !secret/keep.txt
    expect(found).not.toContain('src/other.gen.ts'); // *.gen.ts at the root
    expect(found).toContain('src/important.gen.ts'); // re-included by src/.gitignore
    expect(found).not.toContain('src/local-only.ts'); // ignored by src/.gitignore
    expect(found).not.toContain('docs/drafts/wip.md'); // .ignore
    expect(found).not.toContain('scratch.tmp'); // .clippyignore
    expect(found.filter((p) => p.endsWith('.gitignore') || p.endsWith('ignore'))).toEqual([]);
  });

  it('drops VCS dirs, node_modules, build outputs, lock files and .env files by default', () => {
    const found = paths();
    for (const p of found) {
      expect(p).not.toMatch(/^(\.git|node_modules|build)\//);
      expect(p).not.toBe('package-lock.json');
    }
    expect(found).not.toContain('.env'); // likely secrets
    expect(paths({ include: ['.env'] })).toEqual(['.env']);
    expect(found).toContain('package.json');
  });

  it('does not hang on a symlink loop and lists each file once, sorted', () => {
    const found = paths();
    expect(found.some((p) => p.startsWith('src/loop/'))).toBe(false);
    expect(new Set(found).size).toBe(found.length);
    expect([...found].sort()).toEqual(found);
  });

  it('lets include globs restrict the set and re-admit ignored files; exclude always wins', () => {
    expect(paths({ include: ['src/**/*.ts'] })).toEqual([
      'src/app.ts',
      'src/auth/session.ts',
      'src/auth/tokens.ts',
      'src/important.gen.ts',
      'src/local-only.ts', // an include glob overrides ignore rules
      'src/other.gen.ts',
      'src/util/strings.ts',
    ]);
    expect(paths({ include: ['build/**', 'app.log'] })).toEqual(['app.log', 'build/out.js']);
    expect(
      paths({ exclude: ['src/**', '**/*.md'] }).some(
        (p) => p.startsWith('src/') || p.endsWith('.md'),
      ),
    ).toBe(false);
    expect(paths({ include: ['src/**'], exclude: ['src/auth/**'] })).not.toContain(
      'src/auth/session.ts',
    );
    // A plain directory covers everything below it, as in plans.
    expect(paths({ include: ['src/auth'] })).toEqual(['src/auth/session.ts', 'src/auth/tokens.ts']);
    expect(paths({ exclude: ['src', 'docs'] }).some((p) => /^(src|docs)\//.test(p))).toBe(false);
  });
});
