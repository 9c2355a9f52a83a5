import { describe, expect, it } from 'vitest';
import { compileTagQuery, extractCode, extractMarkdown } from './extract.js';
import { LANGUAGES, languageForPath, loadAllGrammars } from './languages.js';

const SAMPLES: Record<string, { code: string; def: string }> = {
  typescript: { code: 'export function hello(a: string): void {}\n', def: 'hello' },
  tsx: { code: 'export function View() { return <div/>; }\n', def: 'View' },
  javascript: { code: 'class Cart { add(x) {} }\n', def: 'Cart' },
  python: { code: 'def hello(a):\n    return a\n', def: 'hello' },
  go: { code: 'package p\nfunc Hello() {}\n', def: 'Hello' },
  rust: { code: 'pub fn hello() -> u32 { 1 }\n', def: 'hello' },
  java: { code: 'class Hello { void run() {} }\n', def: 'Hello' },
  c: { code: 'int hello(void) { return 1; }\n', def: 'hello' },
  cpp: { code: 'namespace n { class Hello {}; }\n', def: 'Hello' },
  csharp: { code: 'class Hello { void Run() {} }\n', def: 'Hello' },
  ruby: { code: 'class Hello\n  def run; end\nend\n', def: 'Hello' },
  php: { code: '<?php\nfunction hello() { return 1; }\n', def: 'hello' },
  bash: { code: 'hello() {\n  echo hi\n}\n', def: 'hello' },
};

describe('languages', () => {
  it('loads every grammar shipped in @vscode/tree-sitter-wasm that we use', async () => {
    const grammars = await loadAllGrammars();
    const expected = LANGUAGES.filter((l) => l.wasm).map((l) => l.id);
    expect([...grammars.keys()].sort()).toEqual(expected.sort());
  });

  it.each(Object.keys(SAMPLES))(
    'compiles the %s tag query and finds a definition',
    async (lang) => {
      expect(await compileTagQuery(lang)).toBeGreaterThan(0);
      const { code, def } = SAMPLES[lang]!;
      const ex = await extractCode(code, lang);
      expect(ex.tags.filter((t) => t.kind === 'def').map((t) => t.name)).toContain(def);
    },
  );

  it('maps extensions to languages (C uses the C++ grammar, Markdown none)', () => {
    expect(languageForPath('a/b.TS')).toBe('typescript');
    expect(languageForPath('x.h')).toBe('c');
    expect(languageForPath('x.hpp')).toBe('cpp');
    expect(languageForPath('README.md')).toBe('markdown');
    expect(languageForPath('notes.txt')).toBeNull();
    expect(LANGUAGES.find((l) => l.id === 'c')?.wasm).toBe('tree-sitter-cpp.wasm');
  });

  it('reads Markdown headings outside code fences, with their first paragraph', () => {
    const md = '# Title\n\nIntro text.\n\n```\n# not a heading\n```\n\nSetext\n------\n\nBody.\n';
    const ex = extractMarkdown(md);
    expect(ex.outline.map((e) => e.summary)).toEqual(['# Title', '## Setext']);
    expect(ex.outline[0]!.detail).toBe('# Title\n\nIntro text.');
  });

  it('keeps whole multi-line signatures and doc comments at L3, one line at L2', async () => {
    const code =
      '/** Adds. */\nexport function add(\n  a: number,\n  b: number,\n): number {\n  return a + b;\n}\n';
    const ex = await extractCode(code, 'typescript');
    expect(ex.outline[0]!.summary).toBe('export function add(');
    expect(ex.outline[0]!.detail).toBe(
      '/** Adds. */\nexport function add(\n  a: number,\n  b: number,\n): number',
    );
  });
});

describe('tokens', () => {
  it('counts o200k tokens, treating special-token markers in files as plain text', async () => {
    const { countTokens } = await import('./tokens.js');
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });
});
