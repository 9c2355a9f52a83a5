import { parseTurnId, parseTurnPosition, type SessionInfo } from '@clippy/protocol';
import type { McpContext } from './context.js';
import { ToolError } from './errors.js';

/** The daemon's sessions, as many as `--sessions` lets this server see. */
export async function visibleSessions(ctx: McpContext): Promise<SessionInfo[]> {
  const { sessions } = await ctx.daemon.request('list_sessions', {});
  return sessions.filter((s) => allowed(ctx, s));
}

/** Whether `--sessions` lets the tools touch this session (by its name or its ID). */
export function allowed(ctx: McpContext, info: Pick<SessionInfo, 'session' | 'name'>): boolean {
  const only = ctx.options.sessions;
  return !only || only.includes(info.name) || only.includes(info.session);
}

/** Says which sessions `--sessions` allows. */
function allowedList(ctx: McpContext): string {
  return (ctx.options.sessions ?? []).join(', ');
}

/**
 * A session by ID or name, as the daemon finds it (a live one before an exited one of that
 * name), that this server may touch; the tools then name it by ID, which a name reused meanwhile
 * cannot change.
 */
export async function findSession(ctx: McpContext, ref: string): Promise<SessionInfo> {
  const { sessions } = await ctx.daemon.request('list_sessions', {});
  const info =
    sessions.find((s) => s.session === ref) ??
    sessions.find((s) => s.name === ref && s.state !== 'exited') ??
    sessions.find((s) => s.name === ref);
  if (!info || !allowed(ctx, info)) {
    const limit = ctx.options.sessions
      ? ` among the sessions this clippy mcp may touch (${allowedList(ctx)})`
      : '';
    throw new ToolError(
      `unknown session '${ref}': no clippy session has that name or ID${limit} (list_sessions shows them)`,
      'session_not_found',
    );
  }
  return info;
}

/**
 * Refuses the caller's own session as the target of `tool`: typed into, the text would land in
 * the caller's input while it waits for this very tool, and its answer could never come back.
 */
export function refuseSelf(ctx: McpContext, info: SessionInfo, tool: string): void {
  if (info.session !== ctx.options.self) return;
  throw new ToolError(
    `session '${info.name}' (${info.session}) is your own, the agent running this clippy mcp: ` +
      `${tool} cannot target it (you would wait on yourself). Name another session (list_sessions).`,
    'own_session',
  );
}

/** Refuses a session whose program has exited, for tools that type into it. */
export function refuseExited(info: SessionInfo): void {
  if (info.state !== 'exited') return;
  const how =
    info.exit_signal != null
      ? `killed by ${info.exit_signal}`
      : `exited with code ${info.exit_code ?? '?'}`;
  throw new ToolError(
    `session '${info.name}' has ${how}: it takes no input (new_session starts another)`,
    'session_exited',
  );
}

/** A turn ID (`codex:3`, the session by name or ID) of a session this server may touch. */
export async function findTurnSession(
  ctx: McpContext,
  turnId: string,
): Promise<{ info: SessionInfo; seq: number }> {
  const ref = parseTurnId(turnId);
  if (!ref)
    throw new ToolError(
      `'${turnId}' is not a turn ID: one is SESSION:N, such as codex:3 (N from 1)`,
      'invalid_argument',
    );
  return { info: await findSession(ctx, ref.session), seq: ref.seq };
}

/**
 * `after` of wait: a turn ID of the session, `SESSION:0` (before its first turn), or the turn's
 * number alone; the sequence number it names.
 */
export function afterSeq(info: SessionInfo, after: string): number {
  const text = after.trim();
  if (/^\d+$/u.test(text)) return Number(text);
  const position = parseTurnPosition(text);
  if (!position)
    throw new ToolError(
      `after '${after}' is not a turn: give a turn ID such as ${info.name}:3 (${info.name}:0 for before its first turn), or its number`,
      'invalid_argument',
    );
  if (position.session !== info.name && position.session !== info.session)
    throw new ToolError(
      `after '${after}' is a turn of another session than '${info.name}'`,
      'invalid_argument',
    );
  return position.seq;
}
