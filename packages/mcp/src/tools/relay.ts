import { parseTurnId } from '@clippy/protocol';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { ToolError, toolErrorOf } from '../errors.js';
import { findSession, findTurnSession } from '../sessions.js';
import { refuseBlocked, typingTarget } from '../target.js';
import { latestSeq } from '../turn-wait.js';
import { defineTool, result } from '../tool.js';
import { SEND_REQUEST_TIMEOUT_MS } from './ask.js';

export const relay = defineTool({
  name: 'relay',
  title: 'Relay a turn',
  description:
    "Send a session's latest turn (or a turn by ID) into another session and submit it, byte for byte as clippy stored it, without passing it through you: e.g. hand one agent's review to another.",
  input: {
    from: z
      .string()
      .min(1)
      .describe(
        'where the turn comes from: a session (its latest turn) or a turn ID such as codex:3',
      ),
    to: z.string().min(1).describe('the session it is typed into: its name or ID'),
    raw: z
      .boolean()
      .optional()
      .describe('send the terminal bytes instead of the text (default false: the text)'),
    enter: z.boolean().optional().describe('submit it with Enter (default true)'),
    force: z
      .boolean()
      .optional()
      .describe('type even though the target is busy (default: wait up to 15 s for it)'),
  },
  output: {
    turn_id: z.string().describe('the turn relayed'),
    to: z.string().describe('the target session’s ID'),
    to_name: z.string(),
    size: z.number().int().describe('bytes typed'),
    submitted: z.boolean(),
    after: z
      .string()
      .describe('the target’s latest turn before: wait with this `after` returns its answer'),
  },
  readOnly: false,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(ctx: McpContext, args, signal) {
    const source = parseTurnId(args.from)
      ? await findTurnSession(ctx, args.from).then(({ info, seq }) => `${info.session}:${seq}`)
      : (await findSession(ctx, args.from)).session;
    const target = await typingTarget(
      ctx,
      args.to,
      'relay',
      Date.now() + SEND_REQUEST_TIMEOUT_MS,
      signal,
    );
    refuseBlocked(target);
    const after = `${target.name}:${await latestSeq(ctx, target.session)}`;
    const enter = args.enter ?? true;
    let r;
    try {
      r = await ctx.daemon.request(
        'relay',
        {
          from: source,
          to: target.session,
          enter,
          ...(args.raw ? { raw: true } : {}),
          ...(args.force ? { force: true } : {}),
        },
        { timeoutMs: SEND_REQUEST_TIMEOUT_MS },
      );
    } catch (err) {
      throw toolErrorOf(err);
    }
    if (enter && !r.submitted)
      throw new ToolError(
        `turn ${r.turn_id} was typed into '${target.name}' but it did not react to Enter: it sits in its input (see it: clippy attach ${target.name})`,
        'not_submitted',
      );
    return result(
      `relayed turn ${r.turn_id} (${r.size} bytes) into '${target.name}'${enter ? ' and submitted it' : ''}. Its answer comes from wait with session "${target.name}" and after "${after}".`,
      {
        turn_id: r.turn_id,
        to: target.session,
        to_name: target.name,
        size: r.size,
        submitted: r.submitted,
        after,
      },
    );
  },
});
