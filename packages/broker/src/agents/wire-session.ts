import { dirname, join } from 'node:path';
import type { Preset } from '@clippy/turns';
import type { Logger } from '../log.js';
import { agentChannelByDefault, type TurnConfig } from '../detection/turn-config.js';
import { splitInterpreter } from './args.js';
import { AGENT_DEFINITIONS, hookCommand } from './registry.js';
import type { AgentChannel } from './types.js';
import { WiredChannel } from './wired-channel.js';

/** The daemon's folder for wiring files (agents' settings files), beside its socket (0700). */
const WIRING_DIR = 'agents';

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
  const plain = { args: o.args, env: o.env, channel: null };
  const agent = o.preset.agent;
  if (!agent) return plain;
  if (!(o.wanted ?? agentChannelByDefault(o.config, o.presetName))) return plain;
  const def = AGENT_DEFINITIONS[agent];
  const { lead, own } = splitInterpreter(o.command, o.args);
  const wired = def.wire({
    session: o.session,
    command: o.command,
    args: own,
    env: o.env,
    cwd: o.cwd,
    hook: (event) => hookCommand(o.socket, o.session, agent, event),
    dir: join(dirname(o.socket), WIRING_DIR),
  });
  if ('skipped' in wired) {
    o.log.info(
      { session: o.session, agent, reason: wired.skipped },
      `agent channel not wired: ${wired.skipped}; turns come from the screen`,
    );
    return plain;
  }
  const agentSession = o.agentSession ?? wired.agentSession;
  return {
    args: [...lead, ...wired.args],
    env: wired.env,
    channel: new WiredChannel(
      def.channel({
        session: o.session,
        env: wired.env,
        cwd: o.cwd,
        ...(agentSession ? { agentSession } : {}),
      }),
      o.config.prices,
      wired.files,
    ),
  };
}
