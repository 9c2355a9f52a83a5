import type { DiffFile, DiffTotals, WorktreeChanges } from '@clippy/protocol';

// A session's diff (the `diff` result) as text, written once for every reader: `clippy diff`
// prints it, route templates carry it (`{{diff}}`, `{{diff_stat}}`). No zod here: the CLI's
// fast path loads this module. Here, not in protocol: git's formats, beside diff-git.ts.

/** The unified diff, as `git diff` prints it (files without header, i.e. not asked with detail `patch`, are left out). */
export function diffPatchLines(files: readonly DiffFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    if (!f.header) continue;
    out.push(...f.header);
    for (const h of f.hunks ?? []) out.push(h.header, ...h.lines);
  }
  return out;
}

/** `old => new` for a rename or copy, else the path. */
function shownPath(f: DiffFile): string {
  return f.old_path !== undefined ? `${f.old_path} => ${f.path}` : f.path;
}

/** Width of the graph of `--stat` past which its bars are scaled down (git's default for 80 columns). */
const STAT_GRAPH_WIDTH = 40;

/** The `git diff --stat` table and its summary line (an empty list: no lines). */
export function diffStatLines(files: readonly DiffFile[], totals: DiffTotals): string[] {
  if (files.length === 0) return [];
  const names = files.map(shownPath);
  const nameWidth = Math.max(...names.map((n) => n.length));
  const counts = files.map((f) => (f.binary ? 'Bin' : String((f.added ?? 0) + (f.removed ?? 0))));
  const countWidth = Math.max(...counts.map((c) => c.length));
  const most = Math.max(1, ...files.map((f) => (f.added ?? 0) + (f.removed ?? 0)));
  const scale = most > STAT_GRAPH_WIDTH ? STAT_GRAPH_WIDTH / most : 1;
  // A change of one line or more shows at least one mark, as in git.
  const marks = (n: number) => (n === 0 ? 0 : Math.max(1, Math.round(n * scale)));
  const out = files.map((f, i) => {
    const bar = f.binary
      ? ''
      : `${'+'.repeat(marks(f.added ?? 0))}${'-'.repeat(marks(f.removed ?? 0))}`;
    return ` ${names[i]!.padEnd(nameWidth)} | ${counts[i]!.padStart(countWidth)}${bar ? ` ${bar}` : ''}`;
  });
  out.push(summaryLine(totals));
  return out;
}

/** ` 3 files changed, 10 insertions(+), 2 deletions(-)`, worded as git words it. */
function summaryLine(t: DiffTotals): string {
  const parts = [` ${t.files} file${t.files === 1 ? '' : 's'} changed`];
  const both = t.added === 0 && t.removed === 0;
  if (t.added > 0 || both) parts.push(`${t.added} insertion${t.added === 1 ? '' : 's'}(+)`);
  if (t.removed > 0 || both) parts.push(`${t.removed} deletion${t.removed === 1 ? '' : 's'}(-)`);
  return parts.join(', ');
}

/** `git diff --name-only`: one path a line. */
export function diffNameLines(files: readonly DiffFile[]): string[] {
  return files.map((f) => f.path);
}

/** `+12 −3` (a real minus sign, as the summary is read, not parsed); `-` when not counted. */
export function changesSummary(changes: WorktreeChanges | null | undefined): string {
  if (!changes) return '-';
  return `+${changes.added} \u2212${changes.removed}`;
}

/**
 * At most `max` lines; past it the first `max - 1` and a last line `… N more lines` followed by
 * `hint` (where to read the rest), so a reader knows the text was cut and by how much.
 */
export function capLines(lines: readonly string[], max: number, hint = ''): string[] {
  if (lines.length <= max) return [...lines];
  const kept = Math.max(0, max - 1);
  const more = lines.length - kept;
  return [...lines.slice(0, kept), `… ${more} more line${more === 1 ? '' : 's'}${hint}`];
}
