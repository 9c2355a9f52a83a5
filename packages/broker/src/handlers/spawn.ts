import { statSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { DEFAULT_COLS, DEFAULT_PRESET, DEFAULT_ROWS } from '../constants.js';
import { resolveCommand } from '../pty/resolve-command.js';
import { HandlerError, type Handler } from './context.js';
import { currentTurnConfig, resolveSessionPreset } from '../turn-config/session-preset.js';
import { persistByDefault } from '../turn-config/turn-config.js';
import { wireSession } from '../agents/wire-session.js';

/** Characters a session name may not hold: `:` separates session and seq in turn IDs. */
const BAD_NAME = /[:\s\p{Cc}]/u;

/**
 * The variable that tells a session's programs which session they run in: what an agent's MCP
 * server (`clippy mcp`) knows its own session by, and scripts by for `clippy send` and friends.
 */
export const SESSION_ID_VAR = 'CLIPPY_SESSION_ID';

/**
 * Sets the session's ID in its environment (`spawn.session_env`, default on); off, the variable
 * is dropped, as one the caller inherited from another session would name that one.
 */
export function withSessionId(env: Record<string, string>, id: string, wanted = true): void {
  if (wanted) env[SESSION_ID_VAR] = id;
  else delete env[SESSION_ID_VAR];
}

/** The broker's own environment with unset entries dropped (the default child environment). */
export function ownEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

export const spawn: Handler<'spawn'> = async (
  request,
  { sessions, history, historyUnavailable, worktrees, daemon },
) => {
  let cwd = request.cwd ?? process.cwd();
  if (!isAbsolute(cwd)) {
    throw new HandlerError('invalid_argument', `cwd must be an absolute path (got '${cwd}')`);
  }
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir)
    throw new HandlerError(
      'cwd_not_found',
      `working directory '${cwd}' does not exist or is not a directory`,
    );

  let name: string | undefined;
  /** The name a session not named by the caller gets, as things stand now (null: named). */
  let autoName: (() => string) | null = null;
  if (request.name !== undefined) {
    if (BAD_NAME.test(request.name)) {
      throw new HandlerError(
        'invalid_argument',
        `session name '${request.name}' may not contain ':', spaces or control characters`,
      );
    }
    if (sessions.nameTaken(request.name)) {
      throw new HandlerError(
        'duplicate_session',
        `a live session is already named '${request.name}'`,
      );
    }
    name = request.name;
  } else if (!request.worktree) {
    const base =
      basename(request.command)
        .replace(/[:\s\p{Cc}]/gu, '_')
        .slice(0, 48) || 'session';
    autoName = () => sessions.uniqueName(base);
    name = autoName();
  }

  // Asked to keep its turns, and nowhere to keep them: refused before anything starts (the
  // config file's default instead goes on unpersisted; `ls` and `daemon status` say why).
  if (request.persist === true && !history)
    throw new HandlerError(
      'history_unavailable',
      `cannot persist this session: the turn history is unavailable (${historyUnavailable ?? 'it could not be opened at start'}); see clippy daemon status`,
    );

  // The child's environment is exactly the caller's (or the broker's own), unchanged.
  const env = request.env ? { ...request.env } : ownEnvironment();
  let resolved = resolveCommand(request.command, cwd, env.PATH);
  if (!resolved.ok) throw new HandlerError('spawn_failed', resolved.message);

  // The preset is checked before anything starts: a bad one is an error, not a session.
  const turnConfig = currentTurnConfig();
  const preset = resolveSessionPreset(request.preset, request.pattern, turnConfig);

  // Last of the checks, as it makes something: the worktree the command then starts in.
  const created = request.worktree
    ? await worktrees.create({
        cwd,
        name: request.worktree.name,
        sessionName: request.name,
        base: request.worktree.base,
        command: request.command,
        configuredDir: turnConfig.worktreeDir,
        sessionNameFree: (n) => !sessions.nameTaken(n),
      })
    : null;
  if (created) {
    // While git worked, another spawn may have taken the name.
    if (request.name === undefined) {
      autoName = () =>
        sessions.nameTaken(created.name) ? sessions.uniqueName(created.name) : created.name;
      name = autoName();
    }
    if (request.name !== undefined && sessions.nameTaken(request.name)) {
      await worktrees.discard(created.record);
      throw new HandlerError(
        'duplicate_session',
        `a live session is already named '${request.name}'`,
      );
    }
    cwd = created.cwd;
    // A relative command (`./run.sh`) is the worktree's copy of it.
    resolved = resolveCommand(request.command, cwd, env.PATH);
    if (!resolved.ok) {
      await worktrees.discard(created.record);
      throw new HandlerError('spawn_failed', resolved.message);
    }
  }

  const id = sessions.newId();
  withSessionId(env, id, request.session_env);
  const cols = request.cols ?? DEFAULT_COLS;
  const rows = request.rows ?? DEFAULT_ROWS;
  const presetName = request.pattern !== undefined ? 'custom' : (request.preset ?? DEFAULT_PRESET);
  const wired = wireSession({
    preset,
    presetName,
    wanted: request.agent_channel,
    config: turnConfig,
    session: id,
    command: request.command,
    resolved: resolved.path,
    args: request.args,
    env,
    cwd,
    socket: daemon.socketPath,
    log: daemon.log,
  });
  let pty;
  try {
    pty = await daemon.spawnPty({
      file: resolved.path,
      args: wired.args,
      cwd,
      env: wired.env,
      cols,
      rows,
    });
  } catch (err) {
    // Its wiring's files (an agent's settings file) go with it.
    wired.channel?.dispose();
    if (created) await worktrees.discard(created.record);
    throw new HandlerError(
      'spawn_failed',
      `could not start '${request.command}': ${(err as Error).message}`,
    );
  }
  // While the program started, another spawn may have taken the name: a name asked for is
  // refused (the program ends), a name of ours is chosen again.
  if (autoName) name = autoName();
  else if (sessions.nameTaken(name!)) {
    pty.killGroup('SIGKILL');
    pty.dispose();
    wired.channel?.dispose();
    if (created) await worktrees.discard(created.record);
    throw new HandlerError('duplicate_session', `a live session is already named '${name}'`);
  }
  const session = sessions.create({
    id,
    name: name!,
    kind: 'pty',
    command: request.command,
    args: request.args,
    cwd,
    cols,
    rows,
    preset: presetName,
    pattern: request.pattern,
    // Off unless asked for (an agent's output may hold secrets): the flag, else config.json.
    persisted: request.persist ?? persistByDefault(turnConfig, presetName),
    pty,
    pid: pty.pid,
    turns: { preset, config: turnConfig, channel: wired.channel },
    ...(wired.off ? { agentOff: wired.off } : {}),
    ...(created ? { worktree: created.record } : {}),
  });
  if (!created) return { session: session.id, name: session.name, pid: session.pid };
  return {
    session: session.id,
    name: session.name,
    pid: session.pid,
    worktree: session.worktree!.info(),
    ...(created.notes.length ? { notes: created.notes } : {}),
  };
};
