import type { DiffFile, DiffHunk, DiffStatus } from '@clippy/protocol';
import { diffGitLine } from '@clippy/system/git';

// Reads what `git diff --raw --numstat --no-abbrev -z [-p]` prints: the raw records (modes,
// blob IDs, status, paths), the same files' line counts, then (with -p) a NUL and the patch.
// Paths come from the NUL-separated records, never from the patch's quoted headers.

/** A file of the diff, with what its raw record says beyond DiffFile. */
export interface ParsedFile extends DiffFile {
  oldMode: string;
  newMode: string;
  /** The base's blob ID (zeros for an added file). */
  oldId: string;
}

const STATUS: Record<string, DiffStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
};

/** Reads NUL-terminated fields of a buffer, one after another. */
class Fields {
  at = 0;
  constructor(private readonly buf: Buffer) {}

  get done(): boolean {
    return this.at >= this.buf.length;
  }

  peek(): number {
    return this.buf[this.at]!;
  }

  next(): string {
    const end = this.buf.indexOf(0, this.at);
    if (end < 0) throw new Error('diff output ends inside a record');
    const field = this.buf.toString('utf8', this.at, end);
    this.at = end + 1;
    return field;
  }

  rest(): string {
    const text = this.buf.toString('utf8', this.at);
    this.at = this.buf.length;
    return text;
  }
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/u;

type Block = { header: string[]; hunks: DiffHunk[] };

/** One file's patch block (its lines) as header lines and hunks. */
export function splitBlock(lines: string[]): Block {
  const header: string[] = [];
  const hunks: DiffHunk[] = [];
  let hunk: DiffHunk | null = null;
  for (const line of lines) {
    const m = HUNK_HEADER.exec(line);
    if (m) {
      hunk = {
        header: line,
        old_start: Number(m[1]),
        old_lines: m[2] === undefined ? 1 : Number(m[2]),
        new_start: Number(m[3]),
        new_lines: m[4] === undefined ? 1 : Number(m[4]),
        lines: [],
      };
      hunks.push(hunk);
    } else if (hunk) hunk.lines.push(line);
    else header.push(line);
  }
  return { header, hunks };
}

/** Lines a file's hunks add and remove; null for a binary file (git shows no lines of it). */
function countLines(block: Block): {
  added: number | null;
  removed: number | null;
  binary: boolean;
} {
  if (block.header.some((l) => l.startsWith('Binary files ') || l === 'GIT binary patch')) {
    return { added: null, removed: null, binary: true };
  }
  let added = 0;
  let removed = 0;
  for (const h of block.hunks) {
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  }
  return { added, removed, binary: false };
}

/**
 * The files of a diff: `--raw --numstat` (detail `files`), or `--raw -p` (detail `patch`: each
 * file gets its header and hunks, and its counts from them, as git counts them). `truncated`
 * says the patch was cut (its output passed what is read): later files have neither lines nor
 * counts.
 */
export function parseDiffOutput(
  output: Buffer,
  withPatch: boolean,
): { files: ParsedFile[]; truncated: boolean } {
  const fields = new Fields(output);
  const files: ParsedFile[] = [];
  while (!fields.done && fields.peek() === 0x3a /* ':' */) {
    const [oldMode, newMode, oldId, , code] = fields.next().slice(1).split(' ');
    const letter = code!.charAt(0);
    const first = fields.next();
    const renamed = letter === 'R' || letter === 'C';
    const second = renamed ? fields.next() : undefined;
    files.push({
      path: second ?? first,
      ...(renamed ? { old_path: first } : {}),
      status: STATUS[letter] ?? 'modified',
      added: null,
      removed: null,
      binary: false,
      oldMode: oldMode!,
      newMode: newMode!,
      oldId: oldId!,
    });
  }
  if (!withPatch) {
    for (const f of files) {
      const [added, removed] = fields.next().split('\t');
      if (f.old_path !== undefined) {
        fields.next();
        fields.next();
      }
      f.binary = added === '-';
      f.added = f.binary ? null : Number(added);
      f.removed = f.binary ? null : Number(removed);
    }
    return { files, truncated: false };
  }
  if (files.length === 0) return { files, truncated: false };
  fields.next(); // the empty record between the raw records and the patch
  const lines = fields.rest().split('\n');
  // The patch ends with a newline; a cut one ends wherever it was cut.
  const complete = lines.at(-1) === '';
  if (complete) lines.pop();
  // Blocks start at `diff --git`: every other line of a patch starts with a header word or
  // with a hunk's ' ', '+', '-' or '\'.
  const blocks: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('diff --git ')) blocks.push([line]);
    else blocks.at(-1)?.push(line);
  }
  // A cut patch: its last file's block may lack lines; that file is left without one.
  if (!complete) blocks.pop();
  let b = 0;
  let truncated = !complete;
  const out: ParsedFile[] = [];
  for (const [i, f] of files.entries()) {
    const first = diffGitLine(f.old_path ?? f.path, f.path);
    const mine: string[][] = [];
    while (b < blocks.length && blocks[b]![0] === first) mine.push(blocks[b++]!);
    if (mine.length === 0) {
      truncated = true;
      out.push(...files.slice(i));
      break;
    }
    const parts = mine.map(splitBlock);
    if (parts.length === 1) {
      out.push({ ...f, ...parts[0]!, ...countLines(parts[0]!) });
      continue;
    }
    // A type change (a file become a link) is two blocks, as git prints it: the old file
    // deleted, then the new one added; each is a file of its own here.
    const [gone, made] = parts as [Block, Block];
    out.push(
      { ...f, status: 'deleted', ...gone, ...countLines(gone) },
      { ...f, status: 'added', oldMode: '000000', ...made, ...countLines(made) },
    );
  }
  return { files: out, truncated };
}
