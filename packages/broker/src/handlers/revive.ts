import { existsSync } from 'node:fs';
import { resolveCommand } from '../pty/resolve-command.js';
import { resumeArgs, wireSession } from '../agents/wire-session.js';
import { currentTurnConfig, resolveSessionPreset } from '../turn-config/session-preset.js';
import type { Session } from '../sessions/session.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../constants.js';
import { HandlerError, findSession, type Handler, type HandlerContext } from './context.js';
import { ownEnvironment, withSessionId } from './spawn.js';

/**
 * The session to revive; one that `kill` or `rm` removed is said to be gone, and how to keep
 * one for revive next time (`kill --keep`).
 */
function findRevivable(context: HandlerContext, ref: string): Session {
  const session = context.sessions.resolve(ref);
  if (session) return session;
  const removed = context.sessions.removed(ref);
  if (!removed) return findSession(context, ref);
  throw new HandlerError(
    'session_not_found',
    removed.by === 'kill'
      ? `session '${removed.name}' was removed by \`clippy kill\`, which removes the sessions it ends: nothing is left to revive (\`clippy kill --keep ${removed.name}\` ends a session and keeps it for \`clippy revive\`)`
      : `session '${removed.name}' was removed by \`clippy rm\`: nothing is left to revive`,
  );
}

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
export const revive: Handler<'revive'> = async (request, context) => {
  const { sessions, daemon } = context;
  const old = findRevivable(context, request.session);
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
  if (!agentSession) {
    const off = old.info().agent_channel === 'off' ? old.info().channel_note : undefined;
    return refuse(
      off
        ? `its agent's channel was not wired (${off}), so clippy never learnt its conversation`
        : `its agent (${agent}) reported no conversation to resume (no turn came through its channel)`,
    );
  }
  const env = request.env ? { ...request.env } : ownEnvironment();
  // The same session again: the same ID in its environment, as when it started.
  withSessionId(env, old.id);
  const resolved = resolveCommand(old.command, old.cwd, env.PATH);
  if (!resolved.ok) throw new HandlerError('spawn_failed', resolved.message);
  // The resume options go among the agent's own arguments, through the wrappers it runs in.
  const resumed = resumeArgs(
    agent,
    { command: old.command, resolved: resolved.path, args: old.args, env, cwd: old.cwd },
    agentSession,
  );
  if ('notAgent' in resumed)
    return refuse(`its command line is not ${agent}'s: ${resumed.notAgent}`);
  const args = resumed.args;
  const wired = wireSession({
    preset,
    presetName: old.preset,
    wanted: undefined,
    config,
    session: old.id,
    command: old.command,
    resolved: resolved.path,
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
    pty = await daemon.spawnPty({
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
  // While the program started, another revive (or a spawn of the name) may have come first.
  if (sessions.nameTaken(old.name)) {
    pty.killGroup('SIGKILL');
    pty.dispose();
    wired.channel?.dispose();
    refuse(`a live session is named '${old.name}' now`);
  }
  const session = sessions.revive(old, {
    name: old.name,
    kind: 'pty',
    command: old.command,
    // The session's own command line and first start, not the resume's (`report` reads them).
    args: old.args,
    createdAt: old.createdAt,
    cwd: old.cwd,
    cols,
    rows,
    preset: old.preset,
    pattern: undefined,
    persisted: old.persisted,
    pty,
    pid: pty.pid,
    turns: { preset, config, channel: wired.channel },
    ...(wired.off ? { agentOff: wired.off } : {}),
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
