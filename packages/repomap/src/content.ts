import fs from 'node:fs';
import path from 'node:path';
import { nameMatcher } from './globs.js';
import type { SectionRule } from './plan.js';
import type { IndexedFile, Level, OutlineEntry, RepoIndex } from './types.js';

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

/** The levels a file can be shown at. */
export function allowedLevels(file: IndexedFile, hasSections: boolean): Level[] {
  let levels: Level[];
  if (file.maxLevel === 1) levels = [0, 1];
  else if (!file.outline || file.outline.length === 0) levels = [0, 1, 4];
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
  if (level <= 1) return null;
  const outline = extra.length
    ? [...(file.outline ?? []), ...extra].sort((a, b) => a.line - b.line || a.depth - b.depth)
    : (file.outline ?? []);
  if (sections.length && outline.length) {
    const body = sectionedBody(index, file, level, sections, outline);
    if (body !== undefined) return body;
  }
  if (level === 4) return fullText(index, file);
  if (outline.length === 0) return null;
  return level === 2 ? l2(outline) : l3(outline);
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
