import { z } from 'zod';
import type { McpContext } from '../context.js';
import { toolErrorOf } from '../errors.js';
import { findSession } from '../sessions.js';
import { MAX_PAGE_CHARS, PAGE_CHARS } from '../turn-result.js';
import { defineTool } from '../tool.js';

export const diff = defineTool({
  name: 'diff',
  title: "A worktree session's changes",
  description:
    'Show what a session running in its own git worktree changed against the commit it started from (commits, staged and unstaged edits, new files): a stat, or the patch as git diff prints it.',
  input: {
    session: z.string().min(1).describe('the session: its name or ID'),
    stat: z
      .boolean()
      .optional()
      .describe('files and line counts only, no patch (default false: the patch too)'),
    paths: z
      .array(z.string().min(1))
      .min(1)
      .max(1000)
      .optional()
      .describe('only these files (paths in the repository)'),
    max_chars: z
      .number()
      .int()
      .min(1_000)
      .max(MAX_PAGE_CHARS)
      .optional()
      .describe(`at most this many characters of patch (default ${PAGE_CHARS}; paths narrows it)`),
  },
  readOnly: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx: McpContext, args) {
    const info = await findSession(ctx, args.session);
    let d;
    try {
      d = await ctx.daemon.request('diff', {
        session: info.session,
        detail: args.stat ? 'files' : 'text',
        ...(args.paths ? { paths: args.paths } : {}),
      });
    } catch (err) {
      throw toolErrorOf(err);
    }
    const max = args.max_chars ?? PAGE_CHARS;
    const patch = d.text ?? '';
    const cut = patch.length > max || d.truncated;
    const stat = d.files
      .map(
        (f) =>
          `${f.status.padEnd(9)} ${f.old_path ? `${f.old_path} → ` : ''}${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${f.removed}`}`,
      )
      .join('\n');
    const head = `${info.name} on ${d.worktree.branch} (${d.worktree.path}) against ${d.base.slice(0, 12)}: ${d.totals.files} files, +${d.totals.added} -${d.totals.removed}`;
    const text = [
      head,
      ...(stat ? [stat] : []),
      ...(patch ? [patch.slice(0, max)] : []),
      ...(cut
        ? [
            `[clippy: the patch is cut at ${Math.min(max, patch.length)} of ${d.truncated ? 'more than ' : ''}${patch.length} characters: ask for fewer paths, or a larger max_chars]`,
          ]
        : []),
    ].join('\n');
    // Text only: the patch is what the agent reads (see turn-result.ts on structuredContent).
    return { content: [{ type: 'text', text }] };
  },
});
