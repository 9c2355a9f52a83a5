import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { ToolError, toolErrorOf } from '../errors.js';
import { defineTool, result } from '../tool.js';

/** Terminal size of the sessions it starts: an agent's usual, wide enough for its boxes. */
const COLS = 120;
const ROWS = 40;

export const newSession = defineTool({
  name: 'new_session',
  title: 'Start a session',
  description:
    'Start a program (an agent such as claude, codex, gemini; a shell) in a new clippy session, optionally in a git worktree of its own, and return its name and ID; ask can then talk to it (it waits for its first prompt).',
  input: {
    command: z.string().min(1).describe('the program to run, e.g. codex, claude, bash'),
    args: z.array(z.string()).optional().describe('its arguments'),
    name: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('the session’s name (default: from the command, made unique)'),
    preset: z
      .string()
      .min(1)
      .optional()
      .describe(
        'how clippy sees its turns: claude, codex, gemini, aider, bash, zsh, python, … (default: the daemon’s)',
      ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe('its working directory (default: yours; relative to yours)'),
    worktree: z
      .boolean()
      .optional()
      .describe(
        'run it in a new git worktree of the repository holding cwd, on a new branch clippy/NAME (diff then shows its changes)',
      ),
    worktree_name: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('with worktree: its name (default: the session’s)'),
  },
  output: {
    session: z.string().describe('the new session’s ID'),
    name: z.string(),
    pid: z.number().int(),
    worktree: z
      .object({ path: z.string(), branch: z.string() })
      .optional()
      .describe('with worktree: where it runs'),
    notes: z.array(z.string()).optional().describe('what you should know about its worktree'),
  },
  readOnly: false,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(ctx: McpContext, args) {
    const only = ctx.options.sessions;
    if (only && (args.name === undefined || !only.includes(args.name)))
      throw new ToolError(
        `this clippy mcp may touch only the sessions ${only.join(', ')}: new_session needs one of those names${args.name === undefined ? '' : ` (not '${args.name}')`}`,
        'not_allowed',
      );
    if (args.worktree_name !== undefined && !args.worktree)
      throw new ToolError('worktree_name goes with worktree: true', 'invalid_argument');
    const cwd = args.cwd === undefined ? ctx.options.cwd : resolve(ctx.options.cwd, args.cwd);
    // Its own identity comes from the daemon: the caller's must not be inherited.
    const { CLIPPY_SESSION_ID: _caller, ...env } = ctx.options.env;
    let r;
    try {
      r = await ctx.daemon.request('spawn', {
        command: args.command,
        args: args.args ?? [],
        cwd: isAbsolute(cwd) ? cwd : resolve(cwd),
        env,
        cols: COLS,
        rows: ROWS,
        ...(args.name !== undefined ? { name: args.name } : {}),
        ...(args.preset !== undefined ? { preset: args.preset } : {}),
        ...(args.worktree
          ? { worktree: args.worktree_name !== undefined ? { name: args.worktree_name } : {} }
          : {}),
      });
    } catch (err) {
      throw toolErrorOf(err);
    }
    const where = r.worktree
      ? ` in worktree ${r.worktree.path} on branch ${r.worktree.branch}`
      : ` in ${cwd}`;
    const notes = r.notes?.length ? `\n${r.notes.join('\n')}` : '';
    return result(
      `started '${r.name}' (id ${r.session}, pid ${r.pid})${where}. It is starting; ask waits for its first prompt.${notes}`,
      {
        session: r.session,
        name: r.name,
        pid: r.pid,
        ...(r.worktree ? { worktree: { path: r.worktree.path, branch: r.worktree.branch } } : {}),
        ...(r.notes?.length ? { notes: r.notes } : {}),
      },
    );
  },
});
