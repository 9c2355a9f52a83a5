import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

/** A language clippy parses: the grammar file it uses (null: no grammar, e.g. Markdown). */
export interface LanguageSpec {
  id: string;
  extensions: string[];
  /** File in @vscode/tree-sitter-wasm/wasm (C uses the C++ grammar, a superset for our tags). */
  wasm: string | null;
}

export const LANGUAGES: LanguageSpec[] = [
  { id: 'typescript', extensions: ['.ts', '.mts', '.cts'], wasm: 'tree-sitter-typescript.wasm' },
  { id: 'tsx', extensions: ['.tsx'], wasm: 'tree-sitter-tsx.wasm' },
  {
    id: 'javascript',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    wasm: 'tree-sitter-javascript.wasm',
  },
  { id: 'python', extensions: ['.py', '.pyi'], wasm: 'tree-sitter-python.wasm' },
  { id: 'go', extensions: ['.go'], wasm: 'tree-sitter-go.wasm' },
  { id: 'rust', extensions: ['.rs'], wasm: 'tree-sitter-rust.wasm' },
  { id: 'java', extensions: ['.java'], wasm: 'tree-sitter-java.wasm' },
  { id: 'c', extensions: ['.c', '.h'], wasm: 'tree-sitter-cpp.wasm' },
  {
    id: 'cpp',
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.ipp'],
    wasm: 'tree-sitter-cpp.wasm',
  },
  { id: 'csharp', extensions: ['.cs'], wasm: 'tree-sitter-c-sharp.wasm' },
  { id: 'ruby', extensions: ['.rb', '.rake', '.gemspec'], wasm: 'tree-sitter-ruby.wasm' },
  { id: 'php', extensions: ['.php'], wasm: 'tree-sitter-php.wasm' },
  { id: 'bash', extensions: ['.sh', '.bash'], wasm: 'tree-sitter-bash.wasm' },
  { id: 'markdown', extensions: ['.md', '.markdown', '.mdx'], wasm: null },
];

const BY_EXTENSION = new Map<string, LanguageSpec>();
for (const spec of LANGUAGES) for (const ext of spec.extensions) BY_EXTENSION.set(ext, spec);

/** The language of a path by its extension, or null for other (text) files. */
export function languageForPath(filePath: string): string | null {
  return BY_EXTENSION.get(path.extname(filePath).toLowerCase())?.id ?? null;
}

export function languageSpec(id: string): LanguageSpec | undefined {
  return LANGUAGES.find((l) => l.id === id);
}

/** Directory holding the grammar .wasm files shipped in @vscode/tree-sitter-wasm. */
export function grammarDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
}

let initPromise: Promise<void> | undefined;
const loaded = new Map<string, Promise<Language>>();

/** Loads a grammar once per thread (web-tree-sitter 0.25 reads the ABI 14/15 files shipped). */
export function loadGrammar(languageId: string): Promise<Language> {
  const spec = languageSpec(languageId);
  if (!spec?.wasm) return Promise.reject(new Error(`no grammar for ${languageId}`));
  const wasm = spec.wasm;
  let p = loaded.get(wasm);
  if (!p) {
    initPromise ??= Parser.init();
    p = initPromise.then(() => Language.load(fs.readFileSync(path.join(grammarDir(), wasm))));
    loaded.set(wasm, p);
  }
  return p;
}

/** Loads every grammar (used by tests and to fail early on a broken install). */
export async function loadAllGrammars(): Promise<Map<string, Language>> {
  const out = new Map<string, Language>();
  for (const spec of LANGUAGES) if (spec.wasm) out.set(spec.id, await loadGrammar(spec.id));
  return out;
}
