import { Parser, Query, type Language, type Node } from 'web-tree-sitter';
import { languageSpec, loadGrammar } from './languages.js';
import {
  CONTAINER_TYPES,
  TAG_QUERIES,
  TRANSPARENT_TYPES,
  WHOLE_TEXT_TYPES,
  WRAPPER_TYPES,
} from './queries.js';
import type { OutlineEntry, Tag } from './types.js';

/** Longest L2 line kept; longer lines are cut with an ellipsis (minified-ish code). */
const MAX_SUMMARY_CHARS = 160;
/** Longest whole-text interface (a type, an enum) kept at L3 before it is cut. */
const MAX_WHOLE_TEXT_LINES = 30;
/** Longest signature kept at L3 (some generated signatures run for pages). */
const MAX_SIGNATURE_LINES = 20;
/** Longest doc comment kept at L3 and in Tag.doc. */
const MAX_DOC_LINES = 20;
/** Lines of a Markdown section's first paragraph shown at L3. */
const MAX_PARAGRAPH_LINES = 12;
/** A parse taking longer than this is abandoned (pathological input must not stall a map). */
const PARSE_TIMEOUT_MS = 5_000;

export interface Extraction {
  tags: Tag[];
  outline: OutlineEntry[];
  /** Set when the tree has syntax errors (the outline is still produced). */
  syntaxErrors?: boolean;
}

/**
 * Parser and compiled tag query per grammar and query text, so that languages sharing both
 * (C and C++) compile the query once per thread: compiling the C++ one takes ~0.1 s.
 */
const parsers = new Map<string, { parser: Parser; query: Query }>();

async function parserFor(languageId: string): Promise<{ parser: Parser; query: Query }> {
  const queryText = TAG_QUERIES[languageId] ?? '';
  const key = `${languageSpec(languageId)?.wasm ?? languageId}\0${queryText}`;
  let p = parsers.get(key);
  if (!p) {
    const language: Language = await loadGrammar(languageId);
    const parser = new Parser();
    parser.setLanguage(language);
    p = { parser, query: new Query(language, queryText) };
    parsers.set(key, p);
  }
  return p;
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

interface Def {
  node: Node;
  nameNode: Node;
  name: string;
  type: string;
  /** node.endIndex, read once (each read is a call into wasm). */
  end: number;
}

function isDocNode(n: Node): boolean {
  return (
    n.type.includes('comment') ||
    n.type === 'attribute_item' ||
    n.type === 'decorator' ||
    n.type === 'annotation'
  );
}

interface CaptureKind {
  kind: 'name' | 'def' | 'ref' | '';
  type: string;
}
const NO_KIND: CaptureKind = { kind: '', type: '' };
/** Capture names split once per query ("def.function" -> def, function), not per capture. */
const captureKinds = new WeakMap<Query, Map<string, CaptureKind>>();

function kindsOf(query: Query): Map<string, CaptureKind> {
  let kinds = captureKinds.get(query);
  if (!kinds) {
    kinds = new Map();
    for (const n of query.captureNames) {
      if (n === 'name') kinds.set(n, { kind: 'name', type: '' });
      else if (n.startsWith('def.')) kinds.set(n, { kind: 'def', type: n.slice(4) });
      else if (n.startsWith('ref.')) kinds.set(n, { kind: 'ref', type: n.slice(4) });
    }
    captureKinds.set(query, kinds);
  }
  return kinds;
}

/** Parses source code and returns its definition/reference tags and its outline. */
export async function extractCode(source: string, languageId: string): Promise<Extraction> {
  const { parser, query } = await parserFor(languageId);
  const started = performance.now();
  const tree = parser.parse(source, null, {
    progressCallback: () => performance.now() - started > PARSE_TIMEOUT_MS,
  });
  if (!tree) throw new Error(`parse abandoned after ${PARSE_TIMEOUT_MS} ms`);
  try {
    return extractFromTree(tree.rootNode, source, query);
  } finally {
    tree.delete();
  }
}

function extractFromTree(root: Node, source: string, query: Query): Extraction {
  const lines = source.split('\n');
  const kinds = kindsOf(query);
  const defs: Def[] = [];
  const refNodes: { node: Node; type: string }[] = [];
  for (const match of query.matches(root)) {
    let defNode: Node | undefined;
    let defType = '';
    let nameNode: Node | undefined;
    for (const c of match.captures) {
      const k = kinds.get(c.name) ?? NO_KIND;
      if (k.kind === 'name') nameNode = c.node;
      else if (k.kind === 'def') {
        defNode = c.node;
        defType = k.type;
      } else if (k.kind === 'ref') refNodes.push({ node: c.node, type: k.type });
    }
    if (defNode && nameNode) {
      defs.push({
        node: defNode,
        nameNode,
        name: source.slice(nameNode.startIndex, nameNode.endIndex),
        type: defType,
        end: defNode.endIndex,
      });
    }
  }
  const defById = new Map<number, Def>();
  for (const d of defs) if (!defById.has(d.node.id)) defById.set(d.node.id, d);
  const namePositions = new Set(defs.map((d) => d.nameNode.startIndex));

  const anchorOf = (n: Node): Node => {
    let a = n;
    for (let p = a.parent; p && p.parent && WRAPPER_TYPES.has(p.type); p = p.parent) a = p;
    return a;
  };
  // Enclosing definitions by range containment (node.parent is a walk from the root in
  // web-tree-sitter, too slow to call for every definition).
  const byRange = [...defById.values()].sort(
    (a, b) => a.node.startIndex - b.node.startIndex || b.end - a.end,
  );
  const context = new Map<number, { parent?: Def; depth: number; inFunction: boolean }>();
  const open: Def[] = [];
  for (const d of byRange) {
    while (open.length && open[open.length - 1]!.end <= d.node.startIndex) open.pop();
    let depth = 0;
    let inFunction = false;
    for (const o of open) {
      if (!TRANSPARENT_TYPES.has(o.type)) depth++;
      if (o.type === 'function' || o.type === 'method') inFunction = true;
    }
    context.set(d.node.id, { parent: open[open.length - 1], depth, inFunction });
    open.push(d);
  }
  const enclosing = (n: Node) => context.get(n.id) ?? { depth: 0, inFunction: false };

  const tags: Tag[] = [];
  const outline: OutlineEntry[] = [];
  const seenOutline = new Set<number>();
  for (const d of defs) {
    const { parent, depth, inFunction } = enclosing(d.node);
    if (d.type === 'variable' && (inFunction || depth > 0)) continue;
    let type = d.type;
    if (type === 'function' && parent && CONTAINER_TYPES.has(parent.type)) type = 'method';
    const endRow = d.node.endPosition.row;
    if (inFunction) {
      // Local helpers count for the graph but are not part of the file's outline or docs.
      const line = d.node.startPosition.row + 1;
      tags.push({ name: d.name, kind: 'def', type, line, endLine: endRow + 1 });
      continue;
    }
    const anchor = anchorOf(d.node);
    const { docStart, docText } = docFor(anchor, d.node, lines);
    tags.push({
      name: d.name,
      kind: 'def',
      type,
      line: d.node.startPosition.row + 1,
      endLine: endRow + 1,
      ...(docText ? { doc: docText } : {}),
    });
    const inOutline =
      depth === 0 || (depth === 1 && parent !== undefined && CONTAINER_TYPES.has(parent.type));
    if (!inOutline || seenOutline.has(anchor.id)) continue;
    seenOutline.add(anchor.id);
    outline.push({
      name: d.name,
      type,
      depth,
      line: docStart + 1,
      endLine: anchor.endPosition.row + 1,
      summary: cut((lines[d.nameNode.startPosition.row] ?? '').trim(), MAX_SUMMARY_CHARS),
      detail: detailFor(d, anchor, docStart, lines),
    });
  }

  // One ref tag per name and file, with its first line and how often it occurs (the graph
  // weighs by count; one tag per occurrence made caches ten times larger).
  const refByName = new Map<string, Tag>();
  for (const { node, type } of refNodes) {
    if (namePositions.has(node.startIndex)) continue;
    const name = source.slice(node.startIndex, node.endIndex);
    if (name.length === 0) continue;
    const seen = refByName.get(name);
    if (seen) {
      seen.count = (seen.count ?? 1) + 1;
      continue;
    }
    const line = node.startPosition.row + 1;
    const tag: Tag = { name, kind: 'ref', type, line, endLine: line };
    refByName.set(name, tag);
    tags.push(tag);
  }
  tags.sort((a, b) => a.line - b.line || cmp(a.kind, b.kind) || cmp(a.name, b.name));
  outline.sort((a, b) => a.line - b.line || a.depth - b.depth);
  return { tags, outline, ...(root.hasError ? { syntaxErrors: true } : {}) };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Comments/attributes directly above a definition (contiguous), and a Python docstring. */
function docFor(anchor: Node, def: Node, lines: string[]): { docStart: number; docText?: string } {
  let docStart = anchor.startPosition.row;
  let sib = anchor.previousNamedSibling;
  while (sib && isDocNode(sib) && docStart - endRow(sib) <= 1 && endRow(sib) < docStart) {
    docStart = sib.startPosition.row;
    sib = sib.previousNamedSibling;
  }
  let docText: string | undefined;
  if (docStart < anchor.startPosition.row) {
    docText = lines.slice(docStart, anchor.startPosition.row).join('\n').trim();
  }
  const docstring = pythonDocstring(def);
  if (docstring) docText = docstring.text;
  if (docText) docText = docText.split('\n').slice(0, MAX_DOC_LINES).join('\n');
  return { docStart, ...(docText ? { docText } : {}) };
}

/** Last row a node covers (line comments that swallow their newline end at column 0). */
function endRow(n: Node): number {
  const { row, column } = n.endPosition;
  return column === 0 && row > n.startPosition.row ? row - 1 : row;
}

function pythonDocstring(def: Node): Node | undefined {
  if (def.type !== 'function_definition' && def.type !== 'class_definition') return undefined;
  const body = def.childForFieldName('body');
  const first = body?.firstNamedChild;
  if (first?.type === 'expression_statement' && first.firstNamedChild?.type === 'string') {
    return first.firstNamedChild;
  }
  return undefined;
}

/** L3 text: doc comments, decorators and the whole signature (or the whole short type). */
function detailFor(d: Def, anchor: Node, docStart: number, lines: string[]): string {
  const out = lines.slice(docStart, anchor.startPosition.row);
  const startRow = anchor.startPosition.row;
  const body = d.node.childForFieldName('body');
  if (WHOLE_TEXT_TYPES.has(d.type) || !body || d.type === 'variable') {
    const endRow = anchor.endPosition.row;
    const max = d.type === 'variable' ? 1 : MAX_WHOLE_TEXT_LINES;
    out.push(...lines.slice(startRow, Math.min(endRow, startRow + max - 1) + 1));
    if (endRow - startRow + 1 > max) out.push(`${indentOf(lines[startRow] ?? '')}  …`);
    return trimBlock(out);
  }
  const sigRows = body.startPosition.row - startRow;
  const sig = lines.slice(startRow, body.startPosition.row + 1);
  const last = sig.length - 1;
  sig[last] = (sig[last] ?? '').slice(0, body.startPosition.column).trimEnd();
  if (sig[last] === '') sig.pop();
  if (sigRows >= MAX_SIGNATURE_LINES) {
    sig.length = MAX_SIGNATURE_LINES;
    sig.push(`${indentOf(lines[startRow] ?? '')}  …`);
  }
  out.push(...sig);
  const docstring = pythonDocstring(d.node);
  if (docstring) {
    const ds = lines.slice(docstring.startPosition.row, docstring.endPosition.row + 1);
    out.push(...ds.slice(0, MAX_DOC_LINES));
  }
  return trimBlock(out);
}

function indentOf(line: string): string {
  return /^\s*/.exec(line)?.[0] ?? '';
}

function trimBlock(lines: string[]): string {
  return lines.map((l) => l.trimEnd()).join('\n');
}

/** Markdown: headings (ATX and setext) outside code fences, each with its first paragraph. */
export function extractMarkdown(source: string): Extraction {
  const lines = source.split('\n');
  const heads: { level: number; text: string; row: number; rows: number }[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const atx = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx) {
      heads.push({ level: atx[1]!.length, text: atx[2]!, row: i, rows: 1 });
      continue;
    }
    const next = lines[i + 1];
    if (next !== undefined && line.trim() !== '' && /^\s{0,3}(=+|-+)\s*$/.test(next)) {
      const prev = lines[i - 1];
      if (prev === undefined || prev.trim() === '') {
        heads.push({ level: next.trim()[0] === '=' ? 1 : 2, text: line.trim(), row: i, rows: 2 });
        i++;
      }
    }
  }
  const tags: Tag[] = [];
  const outline: OutlineEntry[] = [];
  heads.forEach((h, idx) => {
    let end = lines.length - 1;
    for (let j = idx + 1; j < heads.length; j++) {
      if (heads[j]!.level <= h.level) {
        end = heads[j]!.row - 1;
        break;
      }
    }
    while (end > h.row && (lines[end] ?? '').trim() === '') end--;
    const nextHead = heads[idx + 1]?.row ?? lines.length;
    const para: string[] = [];
    let inFence = false;
    for (let r = h.row + h.rows; r < nextHead; r++) {
      const l = lines[r]!;
      if (/^\s{0,3}(`{3,}|~{3,})/.test(l)) {
        inFence = !inFence;
        if (para.length) break;
        continue;
      }
      if (inFence) continue;
      if (l.trim() === '') {
        if (para.length) break;
        continue;
      }
      para.push(l.trimEnd());
      if (para.length >= MAX_PARAGRAPH_LINES) break;
    }
    const heading = '#'.repeat(h.level) + ' ' + h.text;
    tags.push({
      name: h.text,
      kind: 'def',
      type: 'heading',
      line: h.row + 1,
      endLine: end + 1,
      ...(para.length ? { doc: para.join('\n') } : {}),
    });
    outline.push({
      name: h.text,
      type: 'heading',
      depth: 0,
      line: h.row + 1,
      endLine: end + 1,
      summary: cut(heading, MAX_SUMMARY_CHARS),
      detail: para.length ? `${heading}\n\n${para.join('\n')}` : heading,
    });
  });
  return { tags, outline };
}

/** Runs a user's tree-sitter query and returns its captures as extra outline entries. */
export async function runCustomQuery(
  source: string,
  languageId: string,
  queryText: string,
): Promise<OutlineEntry[]> {
  const language = await loadGrammar(languageId);
  const query = new Query(language, queryText);
  const { parser } = await parserFor(languageId);
  const tree = parser.parse(source);
  if (!tree) return [];
  try {
    const lines = source.split('\n');
    const out: OutlineEntry[] = [];
    const seen = new Set<number>();
    for (const c of query.captures(tree.rootNode)) {
      if (seen.has(c.node.id)) continue;
      seen.add(c.node.id);
      const s = c.node.startPosition.row;
      const e = c.node.endPosition.row;
      const text = lines.slice(s, Math.min(e, s + MAX_WHOLE_TEXT_LINES - 1) + 1).join('\n');
      out.push({
        name: c.node.text.split('\n')[0]!.slice(0, 80),
        type: `query.${c.name}`,
        depth: 0,
        line: s + 1,
        endLine: e + 1,
        summary: cut((lines[s] ?? '').trim(), MAX_SUMMARY_CHARS),
        detail: text,
      });
    }
    return out;
  } finally {
    tree.delete();
    query.delete();
  }
}

/** Compiles every tag query (tests use it to prove each grammar and query load). */
export async function compileTagQuery(languageId: string): Promise<number> {
  const { query } = await parserFor(languageId);
  return query.patternCount();
}
