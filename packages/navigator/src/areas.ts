import type { MapFile } from '@clippy/repomap';
import type { FocusArea } from './state.js';

interface Node {
  files: MapFile[];
  dirs: Map<string, Node>;
}

function tree(files: MapFile[]): Node {
  const root: Node = { files: [], dirs: new Map() };
  for (const f of files) {
    const parts = f.path.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      let next = node.dirs.get(dir);
      if (!next) node.dirs.set(dir, (next = { files: [], dirs: new Map() }));
      node = next;
    }
    node.files.push(f);
  }
  return root;
}

function leaves(node: Node): MapFile[] {
  return [...node.files, ...[...node.dirs.values()].flatMap(leaves)];
}

/**
 * Paths whose files are all at one of `levels`, collapsed to the highest directory whose every
 * file qualifies at the same level ("src/auth/" rather than its five files) — the seed's focus and
 * excluded areas name directories that way.
 */
function collapse(
  files: MapFile[],
  qualifies: (f: MapFile) => boolean,
): { path: string; level: number; tokens: number }[] {
  const out: { path: string; level: number; tokens: number }[] = [];
  const walk = (node: Node, prefix: string) => {
    for (const [name, child] of [...node.dirs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const all = leaves(child);
      const level = all[0]?.level;
      if (all.length > 1 && all.every((f) => qualifies(f) && f.level === level)) {
        out.push({
          path: `${prefix}${name}/`,
          level: level!,
          tokens: all.reduce((n, f) => n + f.tokens, 0),
        });
      } else walk(child, `${prefix}${name}/`);
    }
    for (const f of node.files)
      if (qualifies(f)) out.push({ path: f.path, level: f.level, tokens: f.tokens });
  };
  walk(tree(files), '');
  return out;
}

/** Files at L3/L4, by directory where a whole directory is at one level; biggest first. */
export function focusAreas(files: MapFile[]): FocusArea[] {
  return collapse(files, (f) => f.level >= 3)
    .map((a) => ({ path: a.path, level: a.level as 3 | 4, tokens: a.tokens }))
    .sort((a, b) => b.level - a.level || b.tokens - a.tokens || (a.path < b.path ? -1 : 1));
}

/** Files at L0, by directory where a whole directory is excluded. */
export function excludedAreas(files: MapFile[]): string[] {
  return collapse(files, (f) => f.level === 0).map((a) => a.path);
}
