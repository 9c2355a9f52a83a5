import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { deserializeCached } from './cached-field.js';
import { nameMatcher } from './globs.js';
import type { SectionRule } from './plan.js';
import type { IndexedFile, Level, OutlineEntry, OutlineSize, RepoIndex } from './types.js';

const contents = new WeakMap<IndexedFile, string>();
const lossy = new TextDecoder('utf-8');

/** A file's full text (read once per index entry; the navigator renders many times). */
export function fullText(index: RepoIndex, file: IndexedFile): string {
  let text = contents.get(file);
  if (text === undefined) {
    try {
      text = lossy.decode(fs.readFileSync(path.join(index.root, file.path)));
    } catch (err) {
      text = `(unreadable: ${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    contents.set(file, text);
  }
  return text;
}

const decodedOutlines = new WeakMap<IndexedFile, OutlineEntry[]>();

/** A file's outline entries (decoded once per index entry). */
export function outlineOf(file: IndexedFile): OutlineEntry[] {
  if (!file.outline) return [];
  let entries = decodedOutlines.get(file);
  if (!entries) {
    entries = deserializeCached<OutlineEntry[]>(file.outline, 'outline', file.path);
    decodedOutlines.set(file, entries);
  }
  return entries;
}

/** An outline as IndexedFile stores it (nothing for an empty one). */
export function packOutline(entries: OutlineEntry[]): {
  outline?: Uint8Array;
  outlineSize?: OutlineSize;
} {
  if (entries.length === 0) return {};
  const packed = v8.serialize(entries);
  return {
    // A plain Uint8Array, as it arrives from a worker thread or the cache (not a Buffer).
    outline: new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength),
    outlineSize: {
      entries: entries.length,
      l2Chars: l2(entries).length,
      l3Chars: l3(entries).length,
    },
  };
}

/** The levels a file can be shown at. */
export function allowedLevels(file: IndexedFile, hasSections: boolean): Level[] {
  let levels: Level[];
  if (file.maxLevel === 1) levels = [0, 1];
  else if (!file.outline) levels = [0, 1, 4];
  else levels = [0, 1, 2, 3, 4];
  return hasSections ? levels.filter((l) => l !== 0) : levels;
}

/** Clamps a requested level to the nearest level the file supports (rounding down). */
export function clampLevel(file: IndexedFile, level: Level, hasSections: boolean): Level {
  const allowed = allowedLevels(file, hasSections);
  let best = allowed[0]!;
  for (const l of allowed) if (l <= level) best = l;
  return best;
}

function l2(outline: OutlineEntry[]): string {
  return outline
    .filter((e) => e.depth === 0)
    .map((e) => e.summary)
    .join('\n');
}

function l3(outline: OutlineEntry[]): string {
  const parts: string[] = [];
  for (const e of outline) {
    if (e.depth > 1) continue;
    if (e.depth === 0 && parts.length) parts.push('');
    parts.push(e.detail);
  }
  return parts.join('\n');
}

/** The text a file contributes at a level (null: no body, the path alone). */
export function fileBody(
  index: RepoIndex,
  file: IndexedFile,
  level: Level,
  sections: SectionRule[] = [],
  extra: OutlineEntry[] = [],
): string | null {
  // A section rule shows its sections whatever the file's level (sections-only rules leave
  // the file at its ranked level, often L1).
  if (level <= 1 && sections.length === 0) return null;
  const own = outlineOf(file);
  const outline = extra.length
    ? [...own, ...extra].sort((a, b) => a.line - b.line || a.depth - b.depth)
    : own;
  if (sections.length && outline.length) {
    const body = sectionedBody(index, file, level, sections, outline);
    if (body !== undefined) return body;
  }
  if (level <= 1) return null;
  if (level === 4) return fullText(index, file);
  if (outline.length === 0) return null;
  return level === 2 ? l2(outline) : l3(outline);
}

/**
 * The length of `fileBody` at L2/L3 without building it (or decoding the outline) when no
 * section rules or custom-query entries change it.
 */
export function bodyChars(
  index: RepoIndex,
  file: IndexedFile,
  level: 2 | 3,
  sections: SectionRule[] = [],
  extra: OutlineEntry[] = [],
): number {
  if (sections.length === 0 && extra.length === 0) {
    const size = file.outlineSize;
    return size ? (level === 2 ? size.l2Chars : size.l3Chars) : 0;
  }
  return fileBody(index, file, level, sections, extra)?.length ?? 0;
}

/**
 * Section rules: each definition/heading is shown at the level of the last section rule
 * naming it, others at the file's level; undefined when no rule names any entry.
 */
function sectionedBody(
  index: RepoIndex,
  file: IndexedFile,
  base: Level,
  sections: SectionRule[],
  outline: OutlineEntry[],
): string | undefined {
  const matchers = sections.map((s) => ({
    match: nameMatcher(s.pattern),
    level: s.level as Level,
  }));
  const levelOf = (e: OutlineEntry): Level | undefined => {
    let l: Level | undefined;
    for (const m of matchers) if (m.match(e.name)) l = m.level;
    return l;
  };
  if (!outline.some((e) => levelOf(e) !== undefined)) return undefined;
  const lines = fullText(index, file).split('\n');
  const parts: string[] = [];
  let coveredTo = 0;
  let parentLevel: Level = base;
  for (const e of outline) {
    if (e.line <= coveredTo) continue;
    const own = levelOf(e);
    if (e.depth === 0) parentLevel = own ?? base;
    const level = own ?? (e.depth === 0 ? base : parentLevel);
    if (level <= 1) continue;
    if (level === 4) {
      parts.push(lines.slice(e.line - 1, e.endLine).join('\n'));
      coveredTo = e.endLine;
    } else if (level === 3) parts.push(e.detail);
    else if (e.depth === 0) parts.push(e.summary);
  }
  return parts.join('\n');
}
