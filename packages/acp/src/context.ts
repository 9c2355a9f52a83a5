import type { AcpSessions } from './acp-sessions.js';
import type { DaemonLink } from './daemon-link.js';

/** What `session/new` starts when no `--session` is given. */
export interface AgentCommand {
  command: string;
  args: string[];
  /** The turn preset (default: the daemon's). */
  preset?: string;
  /** The agent's environment (the editor's, with clippy's TERM). */
  env: Record<string, string>;
  /** Read the agent's own record of its turns (default: the daemon's, `agentChannels`). */
  agentChannel?: boolean;
}

export interface AcpOptions {
  /** `--session NAME`: every ACP session runs in this existing clippy session. */
  session?: string;
  /** Otherwise each `session/new` starts this command in a new clippy session. */
  agent?: AgentCommand;
  /** clippy's version, for `initialize`'s agentInfo. */
  version: string;
}

/** What every handler of one editor connection shares. */
export interface AcpContext {
  readonly link: DaemonLink;
  readonly sessions: AcpSessions;
  readonly options: AcpOptions;
}
