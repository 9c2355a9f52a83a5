import type { Turn } from '@clippy/protocol';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { ToolError, toolErrorOf } from '../errors.js';
import { findSession, findTurnSession } from '../sessions.js';
import { MAX_PAGE_CHARS, PAGE_CHARS, turnResult } from '../turn-result.js';
import { defineTool } from '../tool.js';

/** The smallest page a call may ask for: a page always moves the reader on. */
const MIN_PAGE_CHARS = 100;

export const readTurn = defineTool({
  name: 'read_turn',
  title: 'Read a turn',
  description:
    "Read one completed turn exactly: by its turn ID, or a session's latest. format text is what a person reads (the agent's own Markdown where clippy has it); raw is the terminal bytes. Long answers come in pages (offset).",
  input: {
    turn_id: z.string().min(1).optional().describe('the turn: its ID, such as codex:3'),
    session: z
      .string()
      .min(1)
      .optional()
      .describe("instead of turn_id: this session's latest turn (its name or ID)"),
    format: z
      .enum(['text', 'raw'])
      .optional()
      .describe('text (default) or raw: the bytes the program wrote, escape sequences and all'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('start at this character (a previous page’s next_offset); default 0'),
    max_chars: z
      .number()
      .int()
      .min(MIN_PAGE_CHARS)
      .max(MAX_PAGE_CHARS)
      .optional()
      .describe(`at most this many characters (default ${PAGE_CHARS})`),
  },
  readOnly: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx: McpContext, args) {
    if ((args.turn_id === undefined) === (args.session === undefined))
      throw new ToolError(
        'read_turn takes turn_id or session (exactly one of them)',
        'invalid_argument',
      );
    let turn: Turn;
    let name: string;
    try {
      if (args.turn_id !== undefined) {
        const { info, seq } = await findTurnSession(ctx, args.turn_id);
        name = info.name;
        ({ turn } = await ctx.daemon.request('get_turn', { turn_id: `${info.session}:${seq}` }));
      } else {
        const info = await findSession(ctx, args.session!);
        name = info.name;
        ({ turn } = await ctx.daemon.request('get_turn', { session: info.session }));
      }
    } catch (err) {
      throw toolErrorOf(err);
    }
    const format = args.format ?? 'text';
    const total = (format === 'raw' ? Buffer.from(turn.content).toString('utf8') : turn.text)
      .length;
    if ((args.offset ?? 0) > total)
      throw new ToolError(
        `offset ${args.offset} is past the end of turn ${turn.turn_id}: it has ${total} characters`,
        'invalid_argument',
      );
    return turnResult(turn, name, {
      format,
      offset: args.offset ?? 0,
      maxChars: args.max_chars ?? PAGE_CHARS,
    });
  },
});
