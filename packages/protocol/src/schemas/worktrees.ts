import { z } from 'zod';

// Worktrees (docs/worktrees.md): a session may run in a git worktree of its own, on a branch
// `clippy/NAME`; its diff is its changes against the commit it started from. Shapes shared by
// `spawn`, `list_sessions`, `diff` and `remove`.

/** Worktree names: a branch component and a directory name at once (typed on command lines). */
export const WorktreeNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/u,
    'letters, digits, "_", "-" and single "." inside, first a letter or digit',
  )
  .refine((name) => !name.endsWith('.lock'), 'may not end in ".lock" (git refuses such branches)')
  .describe('worktree name: the branch is `clippy/NAME`');

export const WorktreeChangesSchema = z.object({
  files: z.number().int().min(0).describe('files changed, added or deleted'),
  added: z.number().int().min(0).describe('lines added (binary files count none)'),
  removed: z.number().int().min(0).describe('lines removed'),
  at: z.number().describe('when they were counted (epoch ms)'),
});
export type WorktreeChanges = z.infer<typeof WorktreeChangesSchema>;

export const WorktreeInfoSchema = z.object({
  path: z.string().describe('the worktree’s directory'),
  branch: z.string().describe('its branch, e.g. `clippy/fix-login` (clippy never deletes it)'),
  base: z.string().describe('the commit it was created from'),
  base_ref: z
    .string()
    .nullable()
    .describe(
      'the ref it was created from (e.g. `refs/heads/main`): the diff is taken against its merge base with the worktree’s HEAD; null: against `base`',
    ),
  repo: z.string().describe('the repository’s git directory (the one its worktrees share)'),
  changes: WorktreeChangesSchema.nullable().describe(
    'its diff in numbers, counted by git off the output path: when a turn of its ends, when it exits, at each `diff`, and when a listing finds them 5 s old; null: not counted yet (or the worktree is gone)',
  ),
});
export type WorktreeInfo = z.infer<typeof WorktreeInfoSchema>;

export const DiffStatusSchema = z
  .enum(['added', 'modified', 'deleted', 'renamed', 'copied', 'type_changed'])
  .describe('git’s A, M, D, R, C and T');
export type DiffStatus = z.infer<typeof DiffStatusSchema>;

export const DiffHunkSchema = z.object({
  header: z.string().describe('the `@@ -a,b +c,d @@ …` line'),
  old_start: z.number().int().min(0).describe('first line in the base (0: none, a new file)'),
  old_lines: z.number().int().min(0).describe('lines of the base it spans'),
  new_start: z.number().int().min(0).describe('first line in the worktree (0: none, a deletion)'),
  new_lines: z.number().int().min(0).describe('lines of the worktree it spans'),
  lines: z
    .array(z.string())
    .describe(
      'each with its first character: space (context), `+`, `-`, or `\\` (no newline at end of file)',
    ),
});
export type DiffHunk = z.infer<typeof DiffHunkSchema>;

export const DiffFileSchema = z.object({
  path: z.string().describe('path in the repository (the new one of a rename)'),
  old_path: z.string().optional().describe('renames and copies: the path it came from'),
  status: DiffStatusSchema,
  added: z
    .number()
    .int()
    .nullable()
    .describe('lines added; null for a binary file (or one past a patch cut at 64 MiB)'),
  removed: z.number().int().nullable().describe('lines removed; null as for `added`'),
  binary: z.boolean().describe('git takes it for binary: no lines, no hunks'),
  untracked: z.boolean().optional().describe('a new file git does not track yet'),
  header: z
    .array(z.string())
    .optional()
    .describe(
      'detail `patch`: git’s header lines (`diff --git`, modes, `index`, `---`/`+++`, or `Binary files … differ`)',
    ),
  hunks: z.array(DiffHunkSchema).optional().describe('detail `patch`: the changes'),
});
export type DiffFile = z.infer<typeof DiffFileSchema>;

export const DiffDetailSchema = z
  .enum(['files', 'patch', 'text'])
  .describe(
    '`files`: each file’s path, status and line counts (what `--stat` and `--name-only` show); `patch`: with its header and hunks too; `text`: the files as with `files`, and the whole patch as one `text`, as `git diff` prints it (`clippy diff`: one string to print, not thousands of lines to decode).',
  );
export type DiffDetail = z.infer<typeof DiffDetailSchema>;

export const DiffTotalsSchema = z.object({
  files: z.number().int().min(0),
  added: z.number().int().min(0),
  removed: z.number().int().min(0),
});
export type DiffTotals = z.infer<typeof DiffTotalsSchema>;
