import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileBody } from '../src/content.js';
import { indexRepository, renderMap, type Level, type RepoIndex } from '../src/index.js';
import { GOLDEN_DIR, makeFixtureRepo, removeDir } from './fixture.js';

// Set UPDATE_GOLDEN=1 to rewrite the golden files after an intended output change.
const UPDATE = process.env.UPDATE_GOLDEN === '1';

let repo: string;
let index: RepoIndex;
beforeAll(async () => {
  repo = makeFixtureRepo();
  index = await indexRepository({ root: repo, cache: false });
});
afterAll(() => removeDir(repo));

function golden(name: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, name);
  if (UPDATE) {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true });
    fs.writeFileSync(file, actual);
  }
  expect(actual).toBe(fs.readFileSync(file, 'utf8'));
}

const LANGUAGE_FILES: Record<string, string> = {
  typescript: 'src/auth/session.ts',
  tsx: 'src/components/Button.tsx',
  javascript: 'lib/legacy.js',
  python: 'py/models.py',
  go: 'go/server.go',
  rust: 'rust/lib.rs',
  java: 'java/Main.java',
  c: 'c/list.c',
  cpp: 'cpp/shape.cpp',
  csharp: 'cs/Program.cs',
  ruby: 'ruby/user.rb',
  php: 'php/User.php',
  bash: 'scripts/deploy.sh',
  markdown: 'docs/guide.md',
};

describe('golden maps', () => {
  it.each([1, 2, 3, 4] as Level[])(
    'renders every fixture file at L%i as recorded',
    async (level) => {
      const r = await renderMap(index, {
        budget: 1_000_000,
        verbosity: [{ pattern: '**', level }],
      });
      expect(r.overBudget).toBe(false);
      golden(`all.L${level}.md`, r.output);
    },
  );

  it.each(Object.entries(LANGUAGE_FILES))(
    'renders %s (%s) at each level as recorded',
    async (lang, file) => {
      const f = index.files.find((x) => x.path === file)!;
      expect(f.language).toBe(lang);
      const parts: string[] = [];
      for (const level of [2, 3] as Level[])
        parts.push(`--- L${level}\n${fileBody(index, f, level)}\n`);
      golden(`${lang}.md`, parts.join(''));
    },
  );

  it.each(['json', 'xml'] as const)('renders the %s format as recorded', async (format) => {
    const r = await renderMap(index, {
      budget: 1_000_000,
      format,
      verbosity: [{ pattern: '**', level: 2 }],
    });
    golden(`all.L2.${format}`, r.output);
    if (format === 'json') {
      const parsed = JSON.parse(r.output) as { tokens: number; map: { path: string }[] };
      expect(parsed.tokens).toBe(r.totalTokens);
      expect(parsed.map.length).toBe(index.files.length);
    }
  });

  it('shows more at L3 than at L2 wherever the language has docs or multi-line signatures', () => {
    for (const file of Object.values(LANGUAGE_FILES)) {
      const f = index.files.find((x) => x.path === file)!;
      const l2 = fileBody(index, f, 2)!;
      const l3 = fileBody(index, f, 3)!;
      expect(l3, file).not.toBe(l2);
      expect(l3.length, file).toBeGreaterThan(l2.length);
    }
    const py = fileBody(
      index,
      index.files.find((x) => x.path === 'py/models.py')!,
      3,
    )!;
    expect(py).toContain('"""Sums the prices of products.');
    expect(py).toContain('@dataclass');
  });

  it('maps other text files at L1 or L4 only', async () => {
    const r = await renderMap(index, {
      budget: 1_000_000,
      verbosity: [{ pattern: '**', level: 3 }],
    });
    expect(r.files.find((f) => f.path === 'data/notes.txt')!.level).toBe(1);
  });
});
