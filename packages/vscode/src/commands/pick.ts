import * as vscode from 'vscode';
import { parseTurnId, type SessionInfo, type TurnMeta } from '@clippy/protocol';
import { UserError } from '../errors.js';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Node } from '../session-tree.js';
import { oneLine, plural } from '../text.js';
import type { CommandContext } from './context.js';

/** A session as a command names it: the reference the daemon gets, the name people read. */
export interface Target {
  ref: string;
  name: string;
  info?: SessionInfo;
}

function isNode(arg: unknown): arg is Node {
  return typeof arg === 'object' && arg !== null && 'kind' in arg;
}

/** The session a view row stands for, if the argument is one. */
export function sessionOfNode(arg: unknown): SessionInfo | undefined {
  return isNode(arg) && arg.kind !== 'note' ? arg.session : undefined;
}

/** The turn a view row or a turn ID names, if the argument is one. */
export function turnOf(arg: unknown): { turnId: string; name: string } | undefined {
  if (isNode(arg) && arg.kind === 'turn')
    return { turnId: arg.turn.turn_id, name: arg.session.name };
  if (typeof arg === 'string' && parseTurnId(arg)) {
    return { turnId: arg, name: arg.slice(0, arg.lastIndexOf(':')) };
  }
  return undefined;
}

/** The daemon's sessions now (a fresh read: pickers must not offer a session that just went). */
export async function sessionsNow(ctx: CommandContext): Promise<SessionInfo[]> {
  const c = await ctx.link.client();
  return (await c.request('list_sessions', {}, { timeoutMs: REQUEST_TIMEOUT_MS })).sessions;
}

export interface PickOptions {
  placeHolder: string;
  /** Only sessions that run (targets of input). */
  live?: boolean;
  /** Only sessions with a stored turn (sources of a turn). */
  withTurn?: boolean;
  /** Not this session (by ID): the source of a relay is not its target. */
  except?: string;
  /** Only sessions that have exited (what Remove can forget). */
  exited?: boolean;
  /** Only sessions in a worktree of their own (`clippy new --worktree`: they have a diff). */
  worktree?: boolean;
}

/**
 * The session an argument names (a view row, a name or ID), or the one the user picks when
 * none is given. Undefined when the user dismissed the picker. A name the daemon does not know
 * goes to it as it is: its answer says so.
 */
export async function chooseSession(
  ctx: CommandContext,
  arg: unknown,
  opts: PickOptions,
): Promise<Target | undefined> {
  const node = sessionOfNode(arg);
  if (node) return { ref: node.session, name: node.name, info: node };
  if (typeof arg === 'string' && arg !== '') {
    const all = await sessionsNow(ctx);
    // A live session of that name first (names are unique among live ones), then any match.
    const info =
      all.find((s) => (s.name === arg || s.session === arg) && s.state !== 'exited') ??
      all.find((s) => s.name === arg || s.session === arg);
    return info ? { ref: info.session, name: info.name, info } : { ref: arg, name: arg };
  }
  const candidates = (await sessionsNow(ctx)).filter(
    (s) =>
      (!opts.live || s.state !== 'exited') &&
      (!opts.exited || s.state === 'exited') &&
      (!opts.withTurn || s.has_turn) &&
      (!opts.worktree || s.worktree !== undefined) &&
      s.session !== opts.except,
  );
  if (candidates.length === 0) {
    throw new UserError(
      opts.exited
        ? 'no session has exited: only an exited session can be removed'
        : opts.worktree
          ? 'no session runs in a worktree of its own: start one with `clippy new --worktree -- <command>`'
          : opts.withTurn
            ? 'no session has a turn yet'
            : 'no live sessions: start one with `clippy new -- <command>`',
    );
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((s) => ({
      label: s.name,
      description: `${s.state} · ${plural(s.turn_count, 'turn')}`,
      detail: [s.command, ...s.args].join(' '),
      session: s,
    })),
    { placeHolder: opts.placeHolder, matchOnDescription: true },
  );
  return picked
    ? { ref: picked.session.session, name: picked.session.name, info: picked.session }
    : undefined;
}

/** One of a session's stored turns, newest first, as the user picks it. */
export async function chooseTurn(
  ctx: CommandContext,
  target: Target,
): Promise<TurnMeta | undefined> {
  const c = await ctx.link.client();
  const { turns } = await c.request(
    'list_turns',
    { session: target.ref },
    { timeoutMs: REQUEST_TIMEOUT_MS },
  );
  if (turns.length === 0) throw new UserError(`${target.name} has no completed turn yet`);
  const picked = await vscode.window.showQuickPick(
    turns.map((t) => ({
      label: `#${t.seq} ${oneLine(t.prompt, 60)}`,
      description: `${new Date(t.timestamp).toLocaleTimeString()} · ${t.byte_length} bytes`,
      turn: t,
    })),
    { placeHolder: `A turn of ${target.name} (newest first)` },
  );
  return picked?.turn;
}
