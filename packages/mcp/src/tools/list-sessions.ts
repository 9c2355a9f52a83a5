import type { SessionInfo } from '@clippy/protocol';
import { z } from 'zod';
import type { McpContext } from '../context.js';
import { visibleSessions } from '../sessions.js';
import { defineTool, result } from '../tool.js';

const SessionOutput = z.object({
  id: z.string().describe('the session’s ID (never reused)'),
  name: z.string().describe('its name (what the other tools take, as they take the ID)'),
  agent: z
    .string()
    .describe('what runs in it: its turn preset (claude, codex, gemini, bash, …) and command'),
  preset: z.string(),
  command: z.string(),
  state: z
    .enum(['starting', 'idle', 'busy', 'blocked', 'exited'])
    .describe('idle: at its prompt; busy: answering; blocked: asking a question; exited'),
  question: z.string().optional().describe('while blocked: the question it asks'),
  turns: z.number().int().describe('completed turns'),
  latest_turn: z.string().nullable().describe('its latest turn’s ID (null: none yet)'),
  unread: z.number().int().describe('completed turns nobody has looked at yet'),
  cwd: z.string(),
  worktree: z
    .object({ path: z.string(), branch: z.string() })
    .optional()
    .describe('the git worktree it runs in, if it has one (diff shows its changes)'),
  you: z.boolean().describe('this is your own session (the agent running this tool)'),
});

function describeSession(s: SessionInfo, self: string | undefined) {
  return {
    id: s.session,
    name: s.name,
    agent: `${s.preset}: ${[s.command, ...s.args].join(' ')}`,
    preset: s.preset,
    command: s.command,
    state: s.state,
    ...(s.state === 'blocked' && s.menu ? { question: s.menu.question } : {}),
    turns: s.turn_count,
    latest_turn: s.has_turn && s.turn_count > 0 ? `${s.session}:${s.turn_count}` : null,
    unread: s.unread ?? 0,
    cwd: s.cwd,
    ...(s.worktree ? { worktree: { path: s.worktree.path, branch: s.worktree.branch } } : {}),
    you: s.session === self,
  };
}

/** One line per session, for the model to read. */
function line(s: z.infer<typeof SessionOutput>): string {
  const parts = [
    `${s.name} (id ${s.id})${s.you ? ' — you' : ''}`,
    s.agent,
    s.state + (s.question ? `: “${s.question}”` : ''),
    `${s.turns} turn${s.turns === 1 ? '' : 's'}${s.latest_turn ? `, latest ${s.latest_turn}` : ''}`,
    ...(s.unread > 0 ? [`${s.unread} unread`] : []),
    s.worktree ? `worktree ${s.worktree.path} on ${s.worktree.branch}` : `in ${s.cwd}`,
  ];
  return parts.join(' | ');
}

export const listSessions = defineTool({
  name: 'list_sessions',
  title: 'List clippy sessions',
  description:
    'List the terminal sessions clippy runs (agents such as Claude Code, Codex, Gemini CLI; shells): name, ID, agent, state (idle, busy, blocked, exited), turns, unread, folder or worktree. Start here to find whom to ask.',
  input: {
    all: z
      .boolean()
      .optional()
      .describe('include sessions that have exited (default: running ones only)'),
  },
  output: { sessions: z.array(SessionOutput) },
  readOnly: true,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(ctx: McpContext, args) {
    const sessions = (await visibleSessions(ctx))
      .filter((s) => args.all || s.state !== 'exited')
      .map((s) => describeSession(s, ctx.options.self));
    const text =
      sessions.length === 0
        ? `no ${args.all ? '' : 'running '}clippy sessions${ctx.options.sessions ? ` among ${ctx.options.sessions.join(', ')}` : ''} (new_session starts one)`
        : sessions.map(line).join('\n');
    return result(text, { sessions });
  },
});
