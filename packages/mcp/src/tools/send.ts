import { KEY_NAMES } from '@clippy/protocol';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { ToolError, toolErrorOf } from '../errors.js';
import { typingTarget } from '../target.js';
import { latestSeq } from '../turn-wait.js';
import { defineTool, result } from '../tool.js';
import { SEND_REQUEST_TIMEOUT_MS } from './ask.js';

export const send = defineTool({
  name: 'send',
  title: 'Type into a session',
  description:
    'Type text into another clippy session (as a paste: it cannot end the paste or become keys), pressing Enter unless enter is false; or press keys (Enter, Down, C-c, y, …) to answer its menu. Does not wait for an answer (ask does; wait reads it later).',
  input: {
    session: z.string().min(1).describe('the session: its name or ID (list_sessions)'),
    text: z.string().min(1).optional().describe('text to type; give text or keys, not both'),
    keys: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(100)
      .optional()
      .describe(
        `keys to press, in order: ${KEY_NAMES.join(', ')}, C-x (Ctrl), M-x (Alt), or a literal character (y, 1)`,
      ),
    enter: z
      .boolean()
      .optional()
      .describe('press Enter after the text (default true; with keys, default false)'),
    force: z
      .boolean()
      .optional()
      .describe('type even though the session is busy (default: wait up to 15 s for it)'),
  },
  output: {
    session: z.string().describe('the session’s ID'),
    name: z.string(),
    submitted: z.boolean().describe('Enter was pressed (and, after text, the screen reacted)'),
    after: z
      .string()
      .describe('the session’s latest turn before this: wait with this `after` returns the next'),
  },
  readOnly: false,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(ctx: McpContext, args, signal) {
    if ((args.text === undefined) === (args.keys === undefined))
      throw new ToolError(
        'send takes text or keys (exactly one of them): text to type, keys to press',
        'invalid_argument',
      );
    const info = await typingTarget(
      ctx,
      args.session,
      'send',
      Date.now() + SEND_REQUEST_TIMEOUT_MS,
      signal,
    );
    const enter = args.enter ?? args.text !== undefined;
    // What wait takes to return the turn this sets off, even when it completes before wait asks.
    const after = `${info.name}:${await latestSeq(ctx, info.session)}`;
    let submitted: boolean;
    try {
      ({ submitted } = await ctx.daemon.request(
        'send',
        {
          session: info.session,
          ...(args.keys ? { keys: args.keys } : { text: args.text! }),
          ...(enter ? { enter: true } : {}),
          ...(args.force ? { force: true } : {}),
        },
        { timeoutMs: SEND_REQUEST_TIMEOUT_MS },
      ));
    } catch (err) {
      throw toolErrorOf(err);
    }
    if (enter && !submitted && args.text !== undefined)
      throw new ToolError(
        `the text was typed into '${info.name}' but it did not react to Enter: it sits in its input (see it: clippy attach ${info.name})`,
        'not_submitted',
      );
    const what = args.keys
      ? `pressed ${[...args.keys, ...(enter ? ['Enter'] : [])].join(' ')} in '${info.name}'`
      : `typed ${args.text!.length} characters into '${info.name}'${enter ? ' and pressed Enter' : ' (no Enter)'}`;
    return result(
      `${what}. The turn it sets off comes from wait with session "${info.name}" and after "${after}".`,
      { session: info.session, name: info.name, submitted, after },
    );
  },
});
