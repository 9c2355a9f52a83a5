import type { DiffFile } from '@clippy/protocol';

// What a session's diff adds to git's own patch, written as git writes it: the daemon's `diff`
// and `clippy diff` (which runs git itself where the worktree is on its machine) both use
// these, so that the two print the same bytes. Pure: no file system, no Node APIs (the caller
// reads the files and hashes them), no zod (the CLI's fast path loads this module). Here, not
// in protocol: it is git's format, not the wire's, and beside the code that reads the files.

/** Context lines around a change when none is asked for (git's default). */
const DEFAULT_CONTEXT = 3;

/**
 * Variables that point git at another repository, index or object store than the folder it
 * runs in: neither the daemon's environment nor a shell's must steer a session's worktree.
 */
const REPOSITORY_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_QUARANTINE_PATH',
];

/** The environment git runs with: `env` minus the above, never prompting. */
export function gitEnvironment(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  for (const k of REPOSITORY_VARIABLES) delete out[k];
  // Reads never take the index lock to refresh it: an agent's own git commands in that
  // worktree must never meet a lock of ours.
  out.GIT_OPTIONAL_LOCKS = '0';
  out.GIT_TERMINAL_PROMPT = '0';
  return out;
}

/** `-- :(literal)P…` for these paths (none: the whole worktree). */
export function literalPathspec(paths: readonly string[] | undefined): string[] {
  return paths && paths.length > 0 ? ['--', ...paths.map((p) => `:(literal)${p}`)] : [];
}

/**
 * git's default colours of a patch, set whatever the user's `color.diff.*`, `diff.colorMoved`,
 * `diff.wsErrorHighlight` and `core.whitespace` say: clippy colours the new files it writes
 * itself in these same colours, and the two must match.
 */
const DEFAULT_COLORS = [
  'color.diff.meta=bold',
  'color.diff.frag=cyan',
  'color.diff.func=normal',
  'color.diff.context=normal',
  'color.diff.old=red',
  'color.diff.new=green',
  'color.diff.whitespace=normal red',
  'core.whitespace=',
].flatMap((setting) => ['-c', setting]);

/**
 * `git diff` as a session's diff runs it, whatever the user's git settings that would change
 * what the diff looks like or how it is read (`diff.noprefix`, `diff.orderFile`,
 * `color.ui = always`, an external diff, text conversion): the patch is git's own, as
 * `git diff` prints it by default. `color`: with git's default colours (see DEFAULT_COLORS).
 */
export function gitDiffArgs(
  base: readonly string[],
  query: { detail: 'files' | 'patch' | 'text'; context?: number | undefined; color?: boolean },
  pathspec: readonly string[],
): string[] {
  return [
    '-c',
    'core.quotePath=false',
    '-c',
    'diff.suppressBlankEmpty=false',
    ...(query.color ? DEFAULT_COLORS : []),
    'diff',
    ...(query.color
      ? ['--color=always', '--color-moved=no', '--ws-error-highlight=new']
      : ['--no-color']),
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

/** Bytes git looks at to tell a binary file (a NUL among them), as its buffer_is_binary does. */
const BINARY_PROBE_BYTES = 8000;
/** Hex digits of a blob ID in an `index` line (git's shortest abbreviation). */
const ABBREV = 7;

/** Git's C quoting of a path in a patch header: for a `"`, `\` or a control character. */
const NAMED_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};

/** A path as git writes it in a patch header: C-quoted when it holds `"`, `\` or a control character. */
export function quotePath(p: string): string {
  if (!/["\\\x00-\x1f\x7f]/u.test(p)) return p;
  let out = '"';
  for (const ch of p) {
    if (NAMED_ESCAPES[ch]) out += NAMED_ESCAPES[ch];
    else if (/[\x00-\x1f\x7f]/u.test(ch))
      out += `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The first line of a file's patch: `diff --git a/OLD b/NEW`. */
export function diffGitLine(oldPath: string, newPath: string): string {
  return `diff --git ${quotePath(`a/${oldPath}`)} ${quotePath(`b/${newPath}`)}`;
}

/** The header git writes for a file moved unchanged (once both sides are staged). */
export function movedFileHeader(from: string, to: string): string[] {
  return [
    diffGitLine(from, to),
    'similarity index 100%',
    `rename from ${quotePath(from)}`,
    `rename to ${quotePath(to)}`,
  ];
}

/**
 * A new file git does not track yet, as git's patch of it (once `add -N`) shows it: `content`
 * is its bytes (null: not read, shown as binary), `id` its blob ID. The DiffFile of the `diff`
 * answer, with header and hunk.
 */
export function newFileDiff(
  rel: string,
  mode: string,
  content: Uint8Array | null,
  id: string | null,
): DiffFile {
  const binary = content === null || content.subarray(0, BINARY_PROBE_BYTES).includes(0);
  let added: number | null = null;
  let lines: string[] = [];
  if (!binary) {
    // A byte order mark stays: it is the file's, and git shows it.
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(content);
    lines = text === '' ? [] : text.split('\n');
    const endsWithNewline = text.endsWith('\n');
    if (endsWithNewline) lines.pop();
    added = lines.length;
    lines = lines.map((l) => `+${l}`);
    if (!endsWithNewline && text !== '') lines.push('\\ No newline at end of file');
  }
  const header = [diffGitLine(rel, rel), `new file mode ${mode}`];
  if (id) header.push(`index ${'0'.repeat(ABBREV)}..${id.slice(0, ABBREV)}`);
  const shown = quotePath(`b/${rel}`);
  if (binary) header.push(`Binary files /dev/null and ${shown} differ`);
  // git ends a name with a space by a tab, so that patch tools find where it ends.
  else if (added) header.push('--- /dev/null', `+++ ${shown}${rel.includes(' ') ? '\t' : ''}`);
  return {
    path: rel,
    status: 'added',
    added,
    removed: binary ? null : 0,
    binary,
    untracked: true,
    header,
    hunks:
      !binary && added
        ? [
            {
              header: added === 1 ? '@@ -0,0 +1 @@' : `@@ -0,0 +1,${added} @@`,
              old_start: 0,
              old_lines: 0,
              new_start: 1,
              new_lines: added,
              lines,
            },
          ]
        : [],
  };
}

/** A file git shows deleted: what pairing it with a new file needs. */
export interface DeletedSide {
  path: string;
  /** Its blob ID in the base. */
  oldId: string;
  oldMode: string;
}

/** A new file git does not track: what pairing it with a deleted one needs. */
export interface AddedSide {
  path: string;
  /** Its blob ID (null: not read). */
  id: string | null;
  mode: string;
}

/**
 * A new file whose bytes and mode are those of a deleted one is that file moved (an agent's
 * `mv`, with no `git mv`): shown as git shows a rename once both are staged. Each deleted file
 * pairs once, with the first new file that matches it. For each new file, the index of its
 * deleted file in `deleted`, or -1.
 */
export function pairMoves(deleted: readonly DeletedSide[], added: readonly AddedSide[]): number[] {
  const byId = new Map<string, number[]>();
  deleted.forEach((d, i) => {
    const list = byId.get(d.oldId) ?? [];
    list.push(i);
    byId.set(d.oldId, list);
  });
  const taken = new Set<number>();
  return added.map((a) => {
    const match = a.id
      ? byId.get(a.id)?.find((i) => !taken.has(i) && deleted[i]!.oldMode === a.mode)
      : undefined;
    if (match === undefined) return -1;
    taken.add(match);
    return match;
  });
}

/** Orders a diff's files as clippy prints them: by path (a type change's two halves in turn). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
