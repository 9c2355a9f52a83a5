import { existsSync } from 'node:fs';
import type { DiffDetail, DiffFile, DiffTotals } from '@clippy/protocol';
import {
  byPath,
  diffPatchLines,
  gitDiffArgs,
  literalPathspec,
  movedFileHeader,
  newFilePaths,
  newFilesArgs,
  pairMoves,
} from '@clippy/system/git';
import { HandlerError } from '../errors.js';
import { parseDiffOutput, type ParsedFile } from './diff-parse.js';
import { GIT_OUTPUT_MAX_BYTES, gitMessage, runGit } from './git.js';
import type { WorktreeRecord } from './session-worktree.js';
import { readUntrackedFiles, type UntrackedFile } from './untracked.js';

/** Patch text one `diff` answer carries: well inside the 16 MiB frame, with room for the rest. */
export const DIFF_PATCH_MAX_BYTES = 8 * 1024 * 1024;

export interface DiffQuery {
  detail: DiffDetail;
  /** Only these paths (relative to the worktree's top). */
  paths?: string[] | undefined;
  context?: number | undefined;
  /** Read the commit compared against (one more git process); without, `base` is the record's. */
  base?: boolean;
}

export interface WorktreeDiff {
  /** The commit compared against. */
  base: string;
  files: DiffFile[];
  totals: DiffTotals;
  truncated: boolean;
  /** Detail `text`: the patch as git prints it (the files then carry no header nor hunks). */
  text?: string;
}

/** New files paired with deleted ones (protocol's pairMoves) become renames, as git shows them. */
function withMoves(tracked: ParsedFile[], added: UntrackedFile[], withPatch: boolean): DiffFile[] {
  const deleted = tracked.filter((f) => f.status === 'deleted');
  const pairs = pairMoves(
    deleted,
    added.map((u) => ({ path: u.path, id: u.id, mode: u.newMode })),
  );
  const gone = new Set<ParsedFile>();
  const out: DiffFile[] = [];
  added.forEach((u, i) => {
    const match = deleted[pairs[i]!];
    if (!match) {
      out.push(u);
      return;
    }
    gone.add(match);
    // The same path deleted from the index and still there, unchanged: no change at all.
    if (match.path === u.path) return;
    out.push({
      path: u.path,
      old_path: match.path,
      status: 'renamed',
      added: u.binary ? null : 0,
      removed: u.binary ? null : 0,
      binary: u.binary,
      untracked: true,
      ...(withPatch ? { header: movedFileHeader(match.path, u.path), hunks: [] } : {}),
    });
  });
  return [...tracked.filter((f) => !gone.has(f)), ...out];
}

/** What the wire carries of a file (the parse's own fields left out). */
function wireFile(f: DiffFile): DiffFile {
  return {
    path: f.path,
    ...(f.old_path !== undefined ? { old_path: f.old_path } : {}),
    status: f.status,
    added: f.added,
    removed: f.removed,
    binary: f.binary,
    ...(f.untracked ? { untracked: true } : {}),
    ...(f.header ? { header: f.header } : {}),
    ...(f.hunks ? { hunks: f.hunks } : {}),
  };
}

/** Bytes a file's patch takes (its lines and their newlines). */
function patchBytes(f: DiffFile): number {
  let n = 0;
  for (const l of f.header ?? []) n += Buffer.byteLength(l) + 1;
  for (const h of f.hunks ?? []) {
    n += Buffer.byteLength(h.header) + 1;
    for (const l of h.lines) n += Buffer.byteLength(l) + 1;
  }
  return n;
}

/**
 * A worktree's changes against its base: the merge base of the ref it came from and its HEAD
 * (commits on its branch), then the working tree (staged or not), then new files git does not
 * track yet. Runs git twice at once (the diff, the list of new files) and reads the new files.
 */
export async function worktreeDiff(
  record: WorktreeRecord,
  query: DiffQuery,
  env: Record<string, string>,
): Promise<WorktreeDiff> {
  if (!existsSync(record.path)) {
    throw new HandlerError(
      'no_worktree',
      `the worktree ${record.path} is gone (removed outside clippy); its branch ${record.branch} may still be there`,
    );
  }
  const withPatch = query.detail !== 'files';
  const pathspec = literalPathspec(query.paths);
  const opts = { cwd: record.path, env };
  const [first, listed, mergeBase] = await Promise.all([
    runGit(
      gitDiffArgs(
        record.base_ref ? ['--merge-base', record.base_ref] : [record.base],
        query,
        pathspec,
      ),
      opts,
    ),
    runGit(newFilesArgs(pathspec), opts),
    record.base_ref && query.base !== false
      ? runGit(['merge-base', record.base_ref, 'HEAD'], opts)
      : null,
  ]);
  let tracked = first;
  let base =
    mergeBase?.code === 0 ? mergeBase.stdout.toString('utf8').trim() || record.base : record.base;
  // The ref it came from is gone (or shares no history with HEAD now): the commit it came from.
  if (tracked.code !== 0 && record.base_ref) {
    tracked = await runGit(gitDiffArgs([record.base], query, pathspec), opts);
    base = record.base;
  }
  if (tracked.code !== 0) {
    throw new HandlerError(
      'git_failed',
      `git diff in ${record.path} failed: ${gitMessage(tracked)}`,
    );
  }
  if (listed.code !== 0) {
    throw new HandlerError(
      'git_failed',
      `listing new files in ${record.path} failed: ${gitMessage(listed)}`,
    );
  }
  let parsed;
  try {
    parsed = parseDiffOutput(tracked.stdout, withPatch);
  } catch {
    // Only a list of files cut short ends inside a record: one past GIT_OUTPUT_MAX_BYTES.
    throw new HandlerError(
      'git_failed',
      `the diff in ${record.path} is too large to read (its list of files alone passes ${GIT_OUTPUT_MAX_BYTES} bytes)`,
    );
  }
  const newPaths = newFilePaths(listed.stdout);
  const added = await readUntrackedFiles(record.path, newPaths, record.object_format, withPatch);
  const files = withMoves(parsed.files, added, withPatch).map(wireFile).sort(byPath);

  let truncated = parsed.truncated || tracked.overflow;
  if (withPatch) {
    let bytes = 0;
    for (const f of files) {
      bytes += patchBytes(f);
      if (bytes > DIFF_PATCH_MAX_BYTES) {
        truncated = true;
        delete f.header;
        delete f.hunks;
      }
    }
  }
  const totals: DiffTotals = { files: files.length, added: 0, removed: 0 };
  for (const f of files) {
    totals.added += f.added ?? 0;
    totals.removed += f.removed ?? 0;
  }
  if (query.detail !== 'text') return { base, files, totals, truncated };
  // One string for a reader that prints it (`clippy diff`): a client decodes one string
  // instead of a few thousand short ones.
  const lines = diffPatchLines(files);
  for (const f of files) {
    delete f.header;
    delete f.hunks;
  }
  return { base, files, totals, truncated, text: lines.length > 0 ? `${lines.join('\n')}\n` : '' };
}
