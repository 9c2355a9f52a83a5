import { existsSync } from 'node:fs';
import { diffPatchLines, type DiffDetail, type DiffFile, type DiffTotals } from '@clippy/protocol';
import { HandlerError } from '../errors.js';
import { diffGitLine, parseDiffOutput, quotePath, type ParsedFile } from './diff-parse.js';
import { GIT_OUTPUT_MAX_BYTES, gitMessage, runGit } from './git.js';
import type { WorktreeRecord } from './session-worktree.js';
import { readUntrackedFiles, type UntrackedFile } from './untracked.js';

/** Patch text one `diff` answer carries: well inside the 16 MiB frame, with room for the rest. */
export const DIFF_PATCH_MAX_BYTES = 8 * 1024 * 1024;
/** Context lines around a change when the request gives none (git's default). */
const DEFAULT_CONTEXT = 3;

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

/**
 * git settings that would change what the diff looks like or how it is read (a user's
 * `diff.noprefix`, `diff.orderFile`, `color.ui = always`, an external diff, text conversion):
 * the patch is git's own, as `git diff` prints it by default.
 */
function diffArgs(base: string[], query: DiffQuery, pathspec: string[]): string[] {
  return [
    '-c',
    'core.quotePath=false',
    '-c',
    'diff.suppressBlankEmpty=false',
    'diff',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--find-renames',
    '--raw',
    // Counts from --numstat, or from the patch: git would diff every file twice for both.
    ...(query.detail === 'files' ? ['--numstat'] : []),
    '--no-abbrev',
    '-z',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '--no-relative',
    '-O/dev/null',
    ...(query.detail === 'files' ? [] : ['-p', `--unified=${query.context ?? DEFAULT_CONTEXT}`]),
    ...base,
    ...pathspec,
  ];
}

/**
 * A new file whose bytes are those of a deleted one is that file moved (an agent's `mv`, with
 * no `git mv`): shown as git shows a rename once both are staged. Each deleted file pairs once.
 */
function pairMoves(tracked: ParsedFile[], added: UntrackedFile[], withPatch: boolean): DiffFile[] {
  const deleted = new Map<string, ParsedFile[]>();
  for (const f of tracked) {
    if (f.status !== 'deleted') continue;
    const list = deleted.get(f.oldId) ?? [];
    list.push(f);
    deleted.set(f.oldId, list);
  }
  const gone = new Set<ParsedFile>();
  const out: DiffFile[] = [];
  for (const u of added) {
    const match = u.id
      ? deleted.get(u.id)?.find((d) => !gone.has(d) && d.oldMode === u.newMode)
      : undefined;
    if (!match) {
      out.push(u);
      continue;
    }
    gone.add(match);
    // The same path deleted from the index and still there, unchanged: no change at all.
    if (match.path === u.path) continue;
    out.push({
      path: u.path,
      old_path: match.path,
      status: 'renamed',
      added: u.binary ? null : 0,
      removed: u.binary ? null : 0,
      binary: u.binary,
      untracked: true,
      ...(withPatch
        ? {
            header: [
              diffGitLine(match.path, u.path),
              'similarity index 100%',
              `rename from ${quotePath(match.path)}`,
              `rename to ${quotePath(u.path)}`,
            ],
            hunks: [],
          }
        : {}),
    });
  }
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
  const pathspec = query.paths ? ['--', ...query.paths.map((p) => `:(literal)${p}`)] : [];
  const opts = { cwd: record.path, env };
  const [first, listed, mergeBase] = await Promise.all([
    runGit(
      diffArgs(
        record.base_ref ? ['--merge-base', record.base_ref] : [record.base],
        query,
        pathspec,
      ),
      opts,
    ),
    runGit(['ls-files', '--others', '--exclude-standard', '-z', ...pathspec], opts),
    record.base_ref && query.base !== false
      ? runGit(['merge-base', record.base_ref, 'HEAD'], opts)
      : null,
  ]);
  let tracked = first;
  let base =
    mergeBase?.code === 0 ? mergeBase.stdout.toString('utf8').trim() || record.base : record.base;
  // The ref it came from is gone (or shares no history with HEAD now): the commit it came from.
  if (tracked.code !== 0 && record.base_ref) {
    tracked = await runGit(diffArgs([record.base], query, pathspec), opts);
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
  const newPaths = listed.stdout
    .toString('utf8')
    .split('\0')
    // A folder (a repository of its own inside the worktree) is not a file git would add.
    .filter((p) => p !== '' && !p.endsWith('/'));
  const added = await readUntrackedFiles(record.path, newPaths, record.object_format, withPatch);
  const files = pairMoves(parsed.files, added, withPatch)
    .map(wireFile)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

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
