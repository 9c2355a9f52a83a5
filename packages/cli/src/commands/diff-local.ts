import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { WorktreeInfo } from '@clippy/protocol';
import {
  byPath,
  diffGitLine,
  diffPatchLines,
  gitDiffArgs,
  gitEnvironment,
  literalPathspec,
  movedFileHeader,
  newFilePaths,
  newFilesArgs,
  pairMoves,
  readNewFiles,
} from '@clippy/system/git';
import { coloredPatchLines } from './diff-color.js';

// `clippy diff S` where the session's worktree is on this machine: git runs here, its output
// (coloured by git itself on a terminal) goes to stdout as it wrote it, and the new files git
// does not track are written beside it as the daemon writes them (system's git/), in
// the same order: the same bytes as the daemon's `diff` text, without a patch crossing the
// socket nor a node process parsing it. Anything unexpected returns null: the caller then asks
// the daemon, which says what is wrong (docs/worktrees.md).

interface GitRun {
  code: number;
  stdout: Buffer;
}

/** Runs git to its end, its output kept (a diff is printed whole, in the daemon's order). */
function git(args: string[], cwd: string, env: Record<string, string>): Promise<GitRun> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', () => resolve({ code: -1, stdout: Buffer.alloc(0) }));
    child.once('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(chunks) }));
  });
}

/** One file of the printed diff: git's bytes for it, or the lines clippy writes. */
interface Entry {
  path: string;
  bytes?: Buffer;
  lines?: string[];
}

/** A tracked file as git's raw record and patch block show it. */
interface Tracked extends Entry {
  status: string;
  oldId: string;
  oldMode: string;
}

/**
 * git's `--raw -z -p` output as files: each raw record (status, modes, IDs, paths) with its
 * patch block(s); a type change is two blocks (deleted, then added). Null when blocks and
 * records do not line up (something this reader does not know).
 */
function trackedFiles(out: Buffer, color: boolean): Tracked[] | null {
  const records: { status: string; oldMode: string; oldId: string; from: string; to: string }[] =
    [];
  let at = 0;
  const field = () => {
    const end = out.indexOf(0, at);
    if (end < 0) throw new Error('record cut');
    const s = out.toString('utf8', at, end);
    at = end + 1;
    return s;
  };
  try {
    while (at < out.length && out[at] === 0x3a /* ':' */) {
      const [oldMode, , oldId, , code] = field().slice(1).split(' ');
      const letter = code!.charAt(0);
      const from = field();
      const to = letter === 'R' || letter === 'C' ? field() : from;
      records.push({ status: letter, oldMode: oldMode!, oldId: oldId!, from, to });
    }
    if (records.length === 0) return at === out.length ? [] : null;
    if (out[at] !== 0) return null;
    at++; // the empty record between the raw records and the patch
  } catch {
    return null;
  }
  // Blocks start at a line `diff --git` (after git's bold): no line of a hunk starts so.
  const start = Buffer.from(`\n${color ? '\x1b[1m' : ''}diff --git `);
  if (out.indexOf(start.subarray(1), at) !== at) return null;
  const starts = [at];
  for (let i = at; (i = out.indexOf(start, i)) >= 0; i += start.length) starts.push(i + 1);
  const blocks = starts.map((s, i) => out.subarray(s, starts[i + 1] ?? out.length));
  const firstLine = (b: Buffer) => {
    const line = b.toString('utf8', 0, b.indexOf(0x0a));
    return color ? line.slice(4, -3) : line; // within its bold and reset
  };
  const files: Tracked[] = [];
  let b = 0;
  for (const r of records) {
    const first = diffGitLine(r.from, r.to);
    const mine: Buffer[] = [];
    while (b < blocks.length && firstLine(blocks[b]!) === first) mine.push(blocks[b++]!);
    const base = { path: r.to, oldId: r.oldId, oldMode: r.oldMode };
    if (mine.length === 1) files.push({ ...base, status: r.status, bytes: mine[0]! });
    else if (mine.length === 2) {
      files.push(
        { ...base, status: 'D', bytes: mine[0]! },
        { ...base, status: 'A', bytes: mine[1]! },
      );
    } else return null;
  }
  return b === blocks.length ? files : null;
}

/**
 * Whether `worktree` is on this machine: its folder is there and is a worktree of its
 * repository (its `.git` file points into that repository's git directory). A daemon reached
 * through a socket forwarded from elsewhere names folders of another machine.
 */
function isHere(worktree: WorktreeInfo): boolean {
  try {
    const dotGit = readFileSync(path.join(worktree.path, '.git'), 'utf8');
    const gitdir = /^gitdir: (.*)$/mu.exec(dotGit)?.[1];
    if (gitdir === undefined) return false;
    const mine = realpathSync(path.resolve(worktree.path, gitdir));
    return mine.startsWith(path.join(realpathSync(worktree.repo), 'worktrees') + path.sep);
  } catch {
    return false;
  }
}

export interface LocalDiffOptions {
  paths?: string[] | undefined;
  color: boolean;
}

/**
 * The session's patch as the bytes to print (empty: no change), made here with git; null when
 * the worktree is not on this machine or git did something this does not know (the caller then
 * asks the daemon).
 */
export async function localPatch(
  worktree: WorktreeInfo,
  format: 'sha1' | 'sha256',
  opts: LocalDiffOptions,
): Promise<Buffer[] | null> {
  if (!isHere(worktree)) return null;
  const env = gitEnvironment(process.env);
  const pathspec = literalPathspec(opts.paths);
  const diffOf = (base: string[]) =>
    git(gitDiffArgs(base, { detail: 'patch', color: opts.color }, pathspec), worktree.path, env);
  const [first, listed] = await Promise.all([
    diffOf(worktree.base_ref ? ['--merge-base', worktree.base_ref] : [worktree.base]),
    git(newFilesArgs(pathspec), worktree.path, env),
  ]);
  let tracked = first;
  // The ref it came from is gone (or shares no history with HEAD now): the commit it came from.
  if (tracked.code !== 0 && worktree.base_ref) tracked = await diffOf([worktree.base]);
  if (tracked.code !== 0 || listed.code !== 0) return null;
  const files = trackedFiles(tracked.stdout, opts.color);
  if (!files) return null;
  const added = await readNewFiles(worktree.path, newFilePaths(listed.stdout), format);

  const deleted = files.filter((f) => f.status === 'D');
  const pairs = pairMoves(deleted, added);
  const gone = new Set<Tracked>();
  const entries: Entry[] = [];
  added.forEach((u, i) => {
    const match = deleted[pairs[i]!];
    if (match) gone.add(match);
    // The same path deleted from the index and still there, unchanged: no change at all.
    if (match?.path === u.path) return;
    const lines = match ? movedFileHeader(match.path, u.path) : diffPatchLines([u.diff]);
    entries.push({ path: u.path, lines });
  });
  const all = [...files.filter((f) => !gone.has(f)), ...entries].sort(byPath);
  return all.map((e) => {
    if (e.bytes) return e.bytes;
    const lines = opts.color ? coloredPatchLines(e.lines!) : e.lines!;
    return Buffer.from(`${lines.join('\n')}\n`);
  });
}
