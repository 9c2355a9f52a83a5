import { z } from 'zod';
import type { McpContext } from '../context.js';
import { toolErrorOf } from '../errors.js';
import { findSession, refuseExited, refuseSelf } from '../sessions.js';
import { defineTool, result } from '../tool.js';

export const kill = defineTool({
  name: 'kill',
  title: 'End a session',
  description:
    "End a session's program (SIGHUP, then SIGKILL if it lingers). Its turns stay readable; a worktree it ran in is kept with all its changes.",
  input: {
    session: z.string().min(1).describe('the session: its name or ID'),
    signal: z
      .enum(['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGKILL'])
      .optional()
      .describe('the signal (default SIGHUP)'),
  },
  output: {
    session: z.string(),
    name: z.string(),
    signal: z.string(),
  },
  readOnly: false,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  async run(ctx: McpContext, args) {
    const info = await findSession(ctx, args.session);
    refuseSelf(ctx, info, 'kill');
    refuseExited(info);
    const signal = args.signal ?? 'SIGHUP';
    try {
      await ctx.daemon.request('kill', { session: info.session, signal });
    } catch (err) {
      throw toolErrorOf(err);
    }
    return result(
      `sent ${signal} to '${info.name}' (id ${info.session}); its turns stay readable (read_turn)`,
      { session: info.session, name: info.name, signal },
    );
  },
});
