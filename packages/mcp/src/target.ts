import type { SessionInfo } from '@clippy/protocol';
import type { McpContext } from './context.js';
import { ToolError } from './errors.js';
import { findSession, refuseExited, refuseSelf } from './sessions.js';

/**
 * How long a session that has not shown its first prompt yet (an agent new_session just started,
 * loading its configuration and tools) may take before ask or send gives up on it.
 */
export const STARTUP_WAIT_MS = 90_000;

/**
 * The session `tool` types into: one this server may touch, not the caller's own, running, and
 * past its start (waited for, up to STARTUP_WAIT_MS and `until`).
 */
export async function typingTarget(
  ctx: McpContext,
  ref: string,
  tool: string,
  until: number,
  signal: AbortSignal,
): Promise<SessionInfo> {
  const info = await findSession(ctx, ref);
  refuseSelf(ctx, info, tool);
  refuseExited(info);
  if (info.state !== 'starting') return info;
  const started = await ctx.events.untilStarted(
    info.session,
    info.name,
    Math.min(until, Date.now() + STARTUP_WAIT_MS),
    signal,
  );
  refuseExited(started);
  return started;
}

/**
 * Refuses a session that asks a question (a permission dialog, a menu): the text would be typed
 * into the dialog and answer it. Its question and choices say what it waits for.
 */
export function refuseBlocked(info: SessionInfo): void {
  if (info.state !== 'blocked') return;
  const menu = info.menu;
  const choices = menu
    ? ` Its choices: ${menu.options.map((o) => `“${o.label}” (keys ${o.keys.join(' ')})`).join(', ')}.`
    : '';
  throw new ToolError(
    `session '${info.name}' is waiting for an answer to a question${menu ? `: “${menu.question}”` : ''}. ` +
      `Nothing was sent: typed now, the text would answer it.${choices} Answer it (send with keys) or let a person do it (clippy attach ${info.name}), then ask again.`,
    'blocked',
  );
}
