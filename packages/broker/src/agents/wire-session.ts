import { dirname, join } from 'node:path';
import type { AgentName } from '@clippy/protocol';
import type { Preset } from '@clippy/turns';
import type { Logger } from '../log.js';
import { agentChannelByDefault, type TurnConfig } from '../turn-config/turn-config.js';
import { locateAgent } from './command-line.js';
import { AGENT_DEFINITIONS, hookCommand } from './registry.js';
import { HOOK_SECRET_VAR, newHookSecret, rememberSecret, withoutSecret } from './hook-secret.js';
import type { AgentChannel } from './types.js';
import { WiredChannel } from './wired-channel.js';

/** The daemon's folder for wiring files (agents' settings files), beside its socket (0700). */
const WIRING_DIR = 'agents';

/** A session's command line and environment with its agent's channel wired (or as they were). */
export interface WiredSession {
  args: string[];
  env: Record<string, string>;
  channel: AgentChannel | null;
  /**
   * The preset's agent when its channel was wanted and could not be wired, and why (the session
   * reads its turns from the screen: `ls` says `agent_channel: off` with the reason).
   */
  off?: { agent: AgentName; reason: string };
}

export interface WireOptions {
  preset: Preset;
  /** The session's preset name (config.json `agentChannels` may list it). */
  presetName: string;
  /** `spawn.agent_channel`: undefined leaves it to config.json. */
  wanted: boolean | undefined;
  config: TurnConfig;
  session: string;
  command: string;
  /** The path `command` resolved to (its executable may be the agent's under another name). */
  resolved?: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The daemon's socket, for the hook entry. */
  socket: string;
  /** The agent session a revive resumes (its channel knows it from the start). */
  agentSession?: string;
  log: Logger;
}

/**
 * Wires the agent channel of the session's preset for this session only (the agent's own
 * command-line options or environment; never the user's files), when the preset declares an
 * agent and the channel is not switched off. Only the agent's own arguments are changed, found
 * through the wrappers clippy sees through (command-line.ts); a command line that is not the
 * agent, or that the wiring cannot take, is left exactly as it was and the session reads its
 * turns from the screen, saying why (the log, `ls`, `doctor`).
 */
export function wireSession(o: WireOptions): WiredSession {
  // A secret inherited from the agent that started this session is not this session's.
  const plain = { args: o.args, env: withoutSecret(o.env), channel: null };
  const agent = o.preset.agent;
  if (!agent) return plain;
  if (!(o.wanted ?? agentChannelByDefault(o.config, o.presetName))) return plain;
  const def = AGENT_DEFINITIONS[agent];
  const off = (reason: string): WiredSession => {
    o.log.info(
      { session: o.session, agent, reason },
      `agent channel not wired: ${reason}; turns come from the screen`,
    );
    return { ...plain, off: { agent, reason } };
  };
  const found = locateAgent(
    {
      command: o.command,
      ...(o.resolved ? { resolved: o.resolved } : {}),
      args: o.args,
      env: o.env,
      cwd: o.cwd,
    },
    def.identity,
  );
  if ('notAgent' in found) return off(`the command is not ${agent} itself: ${found.notAgent}`);
  // The session's own secret, in its agent's environment (which its hooks inherit): a report
  // counts only with it (handlers/agent-event.ts). Never on a command line.
  const secret = newHookSecret();
  const wired = def.wire({
    session: o.session,
    command: o.command,
    args: found.own,
    env: { ...found.env, [HOOK_SECRET_VAR]: secret },
    cwd: found.cwd,
    hook: (event) => hookCommand(o.socket, o.session, agent, event),
    dir: join(dirname(o.socket), WIRING_DIR),
  });
  if ('skipped' in wired) return off(wired.skipped);
  // Variables the wiring set: given where the agent gets them, through its wrappers.
  const added: Record<string, string> = {};
  for (const [k, v] of Object.entries(wired.env))
    if (found.env[k] !== v && k !== HOOK_SECRET_VAR) added[k] = v;
  const rebuilt = found.rebuild(wired.args, added);
  // The secret goes in the session's own environment, which wrappers pass on: never on a
  // wrapper's command line (`env VAR=… agent`), where any local user could read it.
  const built = { args: rebuilt.args, env: { ...rebuilt.env, [HOOK_SECRET_VAR]: secret } };
  if (found.via.length > 0)
    o.log.info(
      { session: o.session, agent, via: found.via },
      `agent channel wired through ${found.via.join(', ')}`,
    );
  const agentSession = o.agentSession ?? wired.agentSession;
  const channel = new WiredChannel(
    def.channel({
      session: o.session,
      env: { ...found.env, ...added, [HOOK_SECRET_VAR]: secret },
      cwd: found.cwd,
      ...(agentSession ? { agentSession } : {}),
    }),
    o.config.prices,
    wired.files,
  );
  rememberSecret(channel, secret);
  return { args: built.args, env: built.env, channel };
}

/**
 * The session's arguments that resume the agent's conversation `agentSession` (`revive`): its
 * resume options put among the agent's own arguments, wherever they sit; null (with why) when
 * the command line is not the agent's.
 */
export function resumeArgs(
  agent: AgentName,
  command: {
    command: string;
    resolved?: string;
    args: string[];
    env: Record<string, string>;
    cwd: string;
  },
  agentSession: string,
): { args: string[] } | { notAgent: string } {
  const def = AGENT_DEFINITIONS[agent];
  const found = locateAgent(command, def.identity);
  if ('notAgent' in found) return found;
  return { args: found.rebuild(def.resumeArgs(found.own, agentSession)).args };
}
