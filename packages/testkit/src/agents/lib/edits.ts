import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * What a coding agent does to files while it answers, scripted: the Nth answer applies the Nth
 * list of edits (`--edits FILE`, a JSON array of lists) in the agent's working directory, then
 * says so as aider does (`Applied edit to PATH`).
 */
export type Edit =
  { write: string; text: string } | { rm: string } | { mv: [from: string, to: string] };

/** Applies one answer's edits; returns the lines the agent prints about them. */
export function applyEdits(edits: readonly Edit[] | undefined): string[] {
  const lines: string[] = [];
  for (const e of edits ?? []) {
    if ('write' in e) {
      mkdirSync(dirname(e.write), { recursive: true });
      writeFileSync(e.write, e.text);
      lines.push(`Applied edit to ${e.write}`);
    } else if ('rm' in e) {
      rmSync(e.rm);
      lines.push(`Removed ${e.rm}`);
    } else {
      mkdirSync(dirname(e.mv[1]), { recursive: true });
      renameSync(e.mv[0], e.mv[1]);
      lines.push(`Moved ${e.mv[0]} to ${e.mv[1]}`);
    }
  }
  return lines;
}
