import { z } from 'zod';
import type { McpContext } from '../context.js';
import { ToolError } from '../errors.js';
import { afterSeq, findSession } from '../sessions.js';
import { turnResult } from '../turn-result.js';
import { DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, latestSeq, waitForTurn } from '../turn-wait.js';
import { defineTool } from '../tool.js';

export const wait = defineTool({
  name: 'wait',
  title: 'Wait for a turn',
  description:
    "Wait for a session's next completed turn (the first after `after`, which may be there already) and return its text exactly, with its turn ID: after send, or to follow an agent working on its own.",
  input: {
    session: z.string().min(1).describe('the session: its name or ID (list_sessions)'),
    after: z
      .string()
      .min(1)
      .optional()
      .describe(
        'return the first turn after this one: a turn ID (codex:3; codex:0 for its first turn) or its number. Default: the next turn to complete from now',
      ),
    timeout_s: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIMEOUT_S)
      .optional()
      .describe(`give up after this many seconds (default ${DEFAULT_TIMEOUT_S})`),
  },
  readOnly: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx: McpContext, args, signal) {
    const seconds = args.timeout_s ?? DEFAULT_TIMEOUT_S;
    const until = Date.now() + seconds * 1000;
    const info = await findSession(ctx, args.session);
    const latest = await latestSeq(ctx, info.session);
    const after = args.after === undefined ? latest : afterSeq(info, args.after);
    if (after > latest)
      throw new ToolError(
        `turn ${info.name}:${after} does not exist yet: the latest of '${info.name}' is ${info.name}:${latest}`,
        'turn_not_found',
      );
    const turn = await waitForTurn(ctx, { info, after, until, seconds, signal });
    return turnResult(turn, info.name);
  },
});
