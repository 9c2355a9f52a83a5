import { z } from 'zod';
import type { McpContext } from '../context.js';
import { toolErrorOf, ToolError } from '../errors.js';
import { refuseBlocked, typingTarget } from '../target.js';
import { turnResult } from '../turn-result.js';
import { DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, latestSeq, waitForTurn } from '../turn-wait.js';
import { defineTool } from '../tool.js';

/**
 * How long the daemon's answer to `send` may take: it waits up to 15 s for the session to be
 * idle (then `target_busy`), types, presses Enter and confirms the screen reacted.
 */
export const SEND_REQUEST_TIMEOUT_MS = 60_000;

export const ask = defineTool({
  name: 'ask',
  title: 'Ask another session',
  description:
    'Send a message to another clippy session (an agent or a shell), wait for the turn it produces, and return its answer exactly as that session gave it, with the turn ID and tokens.',
  input: {
    session: z.string().min(1).describe('the session to ask: its name or ID (list_sessions)'),
    text: z.string().min(1).describe('the message, typed into the session and submitted'),
    timeout_s: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIMEOUT_S)
      .optional()
      .describe(`give up waiting after this many seconds (default ${DEFAULT_TIMEOUT_S})`),
    force: z
      .boolean()
      .optional()
      .describe('send even though the session is busy with another turn (default: wait for it)'),
  },
  readOnly: false,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(ctx: McpContext, args, signal) {
    const seconds = args.timeout_s ?? DEFAULT_TIMEOUT_S;
    const until = Date.now() + seconds * 1000;
    const info = await typingTarget(ctx, args.session, 'ask', until, signal);
    refuseBlocked(info);
    // The answer is the first turn after the latest stored now whose input is the text: a turn
    // completing between the send and the wait is not missed, one of others is not taken.
    const after = await latestSeq(ctx, info.session);
    let submitted: boolean;
    try {
      ({ submitted } = await ctx.daemon.request(
        'send',
        {
          session: info.session,
          text: args.text,
          enter: true,
          // A REPL block left open (`for i in x: f(i)`) gets its closing Enter.
          complete: true,
          ...(args.force ? { force: true } : {}),
        },
        { timeoutMs: SEND_REQUEST_TIMEOUT_MS },
      ));
    } catch (err) {
      throw toolErrorOf(err);
    }
    if (!submitted)
      throw new ToolError(
        `the text was typed into '${info.name}' but it did not react to Enter: it sits in its input, not asked (see it: clippy attach ${info.name})`,
        'not_submitted',
      );
    const turn = await waitForTurn(ctx, { info, after, until, seconds, input: args.text, signal });
    return turnResult(turn, info.name);
  },
});
