import { existsSync } from 'node:fs';
import { resolveCommand } from '../pty/resolve-command.js';
import { spawnPty } from '../pty/node-pty-process.js';
import { AGENT_DEFINITIONS } from '../agents/registry.js';
import { wireSession } from '../agents/wire-session.js';
import { splitInterpreter } from '../agents/args.js';
import { currentTurnConfig, resolveSessionPreset } from '../detection/session-preset.js';
import type { Session } from '../sessions/session.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../constants.js';
import { HandlerError, findSession, type Handler } from './context.js';
import { ownEnvironment, withSessionId } from './spawn.js';

/** The agent conversation an exited session can resume: its agent's own session ID. */
function resumableSession(session: Session): string | undefined {
  return session.turns?.channel?.channel.agentSession ?? session.turns?.ring.latestAgentSession();
}

/**
 * Starts an exited agent session again where it left off (`clippy revive`): the same command
 * with its agent's resume option for the conversation it had (`claude --resume ID`, `codex
 * resume ID`, `gemini --resume ID`), in the same folder, under the same ID, name and preset;
 * its turns stay and their numbering goes on.
 */
export const revive: Handler<'revive'> = (request, context) => {
  const { sessions, daemon } = context;
  const old = findSession(context, request.session);
  const refuse = (why: string) => {
    throw new HandlerError('not_revivable', `session '${old.name}' cannot be revived: ${why}`);
  };
  if (old.live) refuse('it is still running');
  if (old.kind !== 'pty') refuse('clippy did not start its process (a wrapper ran it)');
  if (sessions.nameTaken(old.name)) refuse(`a live session is named '${old.name}' now`);
  // A session made with --worktree comes back in that worktree (its folder), or not at all.
  const worktree = old.worktree?.record;
  if (worktree && !existsSync(worktree.path))
    refuse(`its worktree ${worktree.path} is gone (git worktree remove, or rm --force)`);
  const config = currentTurnConfig();
  const preset = resolveSessionPreset(old.preset, undefined, config);
  const agent = preset.agent;
  if (!agent) return refuse(`its preset (${old.preset}) names no agent that can resume`);
  const agentSession = resumableSession(old);
  if (!agentSession)
    return refuse(
      `its agent (${agent}) reported no conversation to resume (no turn came through its channel)`,
    );
  const env = request.env ? { ...request.env } : ownEnvironment();
  // The same session again: the same ID in its environment, as when it started.
  withSessionId(env, old.id);
  const { lead, own } = splitInterpreter(old.command, old.args);
  const args = [...lead, ...AGENT_DEFINITIONS[agent].resumeArgs(own, agentSession)];
  const resolved = resolveCommand(old.command, old.cwd, env.PATH);
  if (!resolved.ok) throw new HandlerError('spawn_failed', resolved.message);
  const wired = wireSession({
    preset,
    presetName: old.preset,
    wanted: undefined,
    config,
    session: old.id,
    command: old.command,
    args,
    env,
    cwd: old.cwd,
    socket: daemon.socketPath,
    agentSession,
    log: daemon.log,
  });
  const cols = request.cols ?? (old.cols || DEFAULT_COLS);
  const rows = request.rows ?? (old.rows || DEFAULT_ROWS);
  let pty;
  try {
    pty = spawnPty({
      file: resolved.path,
      args: wired.args,
      cwd: old.cwd,
      env: wired.env,
      cols,
      rows,
    });
  } catch (err) {
    // Its wiring's files (an agent's settings file) go with it.
    wired.channel?.dispose();
    throw new HandlerError(
      'spawn_failed',
      `could not start '${old.command}': ${(err as Error).message}`,
    );
  }
  const session = sessions.revive(old, {
    name: old.name,
    kind: 'pty',
    command: old.command,
    args,
    cwd: old.cwd,
    cols,
    rows,
    preset: old.preset,
    pattern: undefined,
    persisted: old.persisted,
    pty,
    pid: pty.pid,
    turns: { preset, config, channel: wired.channel },
    ...(worktree ? { worktree } : {}),
  });
  daemon.log.info(
    { session: session.id, name: session.name, agent, agent_session: agentSession },
    'session revived',
  );
  return {
    session: session.id,
    name: session.name,
    pid: session.pid,
    command: old.command,
    args,
  };
};
