// `npm run lint`'s check that no package's `src` has an import cycle at run time, between
// folders or files: at every level of a package's tree, the folders and files side by side import
// one another one way only (a folder counts with everything under it). `agents/` importing
// `detection/` while `detection/` imports `agents/` is a knot even when no two files import each
// other: neither folder can be read, tested or moved without the other. A folder's files may use
// their parent's (that is one way). `import type` does not count: it is gone at run time (an
// `import { type A }` is not `import type`: it still loads the module). Test files and test
// helpers are not part of the program and do not count either.
//
// Usage: tsx scripts/import-cycles.ts [repository root]; exits 1 naming each cycle and the
// imports that make it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Cycles known and owned by work in progress, per package `src`: reported, not failed. An entry
 * whose cycle is gone fails the check until it is removed, so that the list cannot outlive its
 * cycles and hide a new one of the same folders.
 */
export const KNOWN: Record<string, string[][]> = {};

/** One import that crosses between two siblings of a level, as evidence of a cycle. */
interface Edge {
  from: string;
  to: string;
}

export interface Cycle {
  /** The package's `src`, relative to the repository. */
  src: string;
  /** The folder the cycle is in, relative to `src` ('' for `src` itself). */
  level: string;
  /** The folders (`name/`) and files side by side in it that import one another, sorted. */
  members: string[];
  /** For each member that imports another: one import that does (`a/x.ts → b/y.ts`). */
  imports: string[];
  /** Listed in KNOWN: reported, not an error. */
  known: boolean;
}

const SOURCE = /\.(ts|tsx|mts)$/u;
const NOT_PROGRAM = /(\.test\.ts|\.d\.ts)$/u;
/** Folders of test code inside a `src`. */
const TEST_FOLDERS = new Set(['test-support', 'fixtures', 'node_modules']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!TEST_FOLDERS.has(entry.name)) sourceFiles(path, out);
    } else if (SOURCE.test(entry.name) && !NOT_PROGRAM.test(entry.name)) out.push(path);
  }
  return out;
}

/** The module specifiers a file loads at run time: static imports and re-exports, `import()`. */
export function runtimeImports(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const specs: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      if (!node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier))
        specs.push(node.moduleSpecifier.text);
      return;
    }
    if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
        specs.push(node.moduleSpecifier.text);
      return;
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return specs;
}

/** The source file a relative specifier names (`./x.js` is `./x.ts`), or null. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  const stem = base.replace(/\.(m?js|jsx)$/u, '');
  for (const candidate of [
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    join(base, 'index.ts'),
    base,
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/**
 * The level two files meet at (their deepest common folder, relative to `src`) and the
 * sibling each sits under there (`name/` for a folder, the file's name for a file).
 */
function meeting(a: string, b: string): { level: string; from: string; to: string } {
  const pa = a.split(sep);
  const pb = b.split(sep);
  let i = 0;
  while (i < pa.length - 1 && i < pb.length - 1 && pa[i] === pb[i]) i++;
  const member = (parts: string[]) => (i < parts.length - 1 ? `${parts[i]}/` : parts[i]!);
  return { level: pa.slice(0, i).join('/'), from: member(pa), to: member(pb) };
}

/** Strongly connected groups of more than one member (Tarjan). */
function cyclicGroups(graph: Map<string, Map<string, Edge>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((m) => [...m.keys()])]);
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of [...nodes].sort()) if (!index.has(v)) connect(v);
  return groups;
}

/** Every import cycle in the `src` of each package under `root`/packages. */
export function findCycles(root: string): Cycle[] {
  const cycles: Cycle[] = [];
  const packages = join(root, 'packages');
  for (const pkg of readdirSync(packages).sort()) {
    const src = join(packages, pkg, 'src');
    if (!existsSync(src)) continue;
    const srcName = relative(root, src).split(sep).join('/');
    // level → member → member → the first import seen between them
    const levels = new Map<string, Map<string, Map<string, Edge>>>();
    for (const file of sourceFiles(src)) {
      for (const spec of runtimeImports(file, readFileSync(file, 'utf8'))) {
        const target = resolveSpecifier(file, spec);
        if (!target || target === file || !target.startsWith(src + sep)) continue;
        const from = relative(src, file);
        const to = relative(src, target);
        const m = meeting(from, to);
        let graph = levels.get(m.level);
        if (!graph) levels.set(m.level, (graph = new Map()));
        let out = graph.get(m.from);
        if (!out) graph.set(m.from, (out = new Map()));
        if (!out.has(m.to)) out.set(m.to, { from, to });
      }
    }
    for (const [level, graph] of [...levels].sort(([a], [b]) => a.localeCompare(b))) {
      for (const members of cyclicGroups(graph)) {
        const imports = members.flatMap((a) =>
          members
            .filter((b) => graph.get(a)?.has(b))
            .map((b) => graph.get(a)!.get(b)!)
            .map((e) => `${e.from.split(sep).join('/')} → ${e.to.split(sep).join('/')}`),
        );
        const known = (KNOWN[srcName] ?? []).some(
          (k) => level === '' && k.length === members.length && k.every((m) => members.includes(m)),
        );
        cycles.push({ src: srcName, level, members, imports, known });
      }
    }
  }
  return cycles;
}

/** The entries of `known` whose package `src` is under `root` but whose cycle is not in `cycles`. */
export function staleKnown(
  root: string,
  cycles: Cycle[],
  known: Record<string, string[][]> = KNOWN,
): string[] {
  return Object.entries(known).flatMap(([src, list]) =>
    existsSync(join(root, src))
      ? list
          .filter(
            (k) =>
              !cycles.some(
                (c) =>
                  c.src === src &&
                  c.level === '' &&
                  c.members.length === k.length &&
                  k.every((m) => c.members.includes(m)),
              ),
          )
          .map((k) => `${src}: ${k.join(' ⇄ ')}`)
      : [],
  );
}

/** A cycle as the check prints it. */
export function describeCycle(c: Cycle): string {
  const where = c.level ? `${c.src}/${c.level}` : c.src;
  return `${where}: ${c.members.join(' ⇄ ')}\n${c.imports.map((i) => `    ${i}`).join('\n')}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const cycles = findCycles(root);
  for (const c of cycles.filter((c) => c.known))
    process.stderr.write(`import-cycles: known, owned elsewhere: ${describeCycle(c)}\n`);
  const errors = cycles.filter((c) => !c.known);
  const stale = staleKnown(root, cycles);
  if (stale.length > 0) {
    process.stderr.write(
      `import-cycles: known cycles that are gone: remove them from KNOWN in scripts/import-cycles.ts (and from docs/architecture.md)\n` +
        stale.map((k) => `  ${k}`).join('\n') +
        '\n',
    );
  }
  if (errors.length > 0) {
    process.stderr.write(
      `import-cycles: ${errors.length} import cycle${errors.length === 1 ? '' : 's'} at run time ` +
        '(docs/architecture.md, "The daemon\'s folders"): move what both sides need into a ' +
        'file or folder of its own that imports neither, or make a type-only import `import type`.\n' +
        errors.map((c) => `  ${describeCycle(c)}`).join('\n') +
        '\n',
    );
  }
  if (errors.length > 0 || stale.length > 0) process.exit(1);
}
