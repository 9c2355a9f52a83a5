import type { Preset } from '@clippy/turns';
import type { Logger } from '../log.js';
import { agentChannelByDefault, type TurnConfig } from '../detection/turn-config.js';
import { splitInterpreter } from './args.js';
import { AGENT_DEFINITIONS, hookCommand } from './registry.js';
import { HOOK_SECRET_VAR, newHookSecret, rememberSecret, withoutSecret } from './hook-secret.js';
import type { AgentChannel } from './types.js';

/** A session's command line and environment with its agent's channel wired (or as they were). */
export interface WiredSession {
  args: string[];
  env: Record<string, string>;
  channel: AgentChannel | null;
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
 * Wires the agent channel of the session's preset for this session only (its own command-line
 * options or environment; never the user's files), when the preset declares an agent and the
 * channel is not switched off. A command line the wiring cannot take is left as it was, and the
 * session reads its turns from the screen.
 */
export function wireSession(o: WireOptions): WiredSession {
  // A secret inherited from the agent that started this session is not this session's.
  const plain = { args: o.args, env: withoutSecret(o.env), channel: null };
  const agent = o.preset.agent;
  if (!agent) return plain;
  if (!(o.wanted ?? agentChannelByDefault(o.config, o.presetName))) return plain;
  const def = AGENT_DEFINITIONS[agent];
  const { lead, own } = splitInterpreter(o.command, o.args);
  // The session's own secret, in its agent's environment (which its hooks inherit): a report
  // counts only with it (handlers/agent-event.ts). Never on a command line.
  const secret = newHookSecret();
  const wired = def.wire({
    session: o.session,
    command: o.command,
    args: own,
    env: { ...o.env, [HOOK_SECRET_VAR]: secret },
    cwd: o.cwd,
    hook: (event) => hookCommand(o.socket, o.session, agent, event),
  });
  if ('skipped' in wired) {
    o.log.info(
      { session: o.session, agent, reason: wired.skipped },
      `agent channel not wired: ${wired.skipped}; turns come from the screen`,
    );
    return plain;
  }
  const agentSession = o.agentSession ?? wired.agentSession;
  const env = { ...wired.env, [HOOK_SECRET_VAR]: secret };
  const channel = def.channel({
    session: o.session,
    env,
    cwd: o.cwd,
    ...(agentSession ? { agentSession } : {}),
  });
  rememberSecret(channel, secret);
  return { args: [...lead, ...wired.args], env, channel };
}
