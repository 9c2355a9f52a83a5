import type { ClippyClient } from '@clippy/client';
import type { SessionEvents } from './session-events.js';

export interface McpOptions {
  /** `--read-only`: only the tools that change nothing (list_sessions, wait, read_turn, diff). */
  readOnly: boolean;
  /** `--sessions A,B`: the only sessions (names or IDs) the tools may touch; undefined: all. */
  sessions?: readonly string[];
  /**
   * The session of the agent that runs this server (its `CLIPPY_SESSION_ID`, or the session
   * whose process it runs under): never a target of ask, send, relay or kill.
   */
  self?: string;
  /** The environment of the sessions `new_session` starts (the agent's, with clippy's TERM). */
  env: Record<string, string>;
  /** The working directory of those sessions when the tool names none (the agent's). */
  cwd: string;
  /** clippy's version, for the MCP `initialize` answer. */
  version: string;
}

/** What every tool of one connection shares. */
export interface McpContext {
  readonly daemon: ClippyClient;
  readonly options: McpOptions;
  readonly events: SessionEvents;
}
