import type { AgentName, AgentTurn } from '@clippy/protocol';
import type { AgentIdentity } from './command-line.js';

/** A turn as the agent itself recorded it, ready to be joined to the turn the screen saw. */
export interface ChannelTurn {
  /** The agent's own Markdown answer, exactly as it recorded it; null when the turn ended without one. */
  answer: string | null;
  /** What the agent received as the user's prompt, when it says (the boundary cross-check). */
  prompt?: string;
  record: AgentTurn;
  /**
   * Where the agent's report and its own record (transcript, rollout, chat file) disagree: the
   * record won (`answer` is the record's, or null when it has none); written on the turn.
   */
  note?: string;
  /**
   * The agent's report says the turn has an answer its record did not hold yet (`answer` is
   * null): the join waits on for the record where it watches it.
   */
  answerToCome?: boolean;
}

/** What an event on the channel meant. */
export type ChannelUpdate =
  /** The agent started (or switched) its session. */
  | { kind: 'started' }
  /** The agent took a prompt: a report of its turn will follow (unless it is interrupted). */
  | { kind: 'prompt'; prompt: string }
  /** The agent completed a turn. */
  | { kind: 'turn'; turn: ChannelTurn }
  /** Nothing for clippy (a side thread, an event it does not use); `why` goes to the debug log. */
  | { kind: 'ignored'; why: string };

/** A completed turn as the screen saw it: what the channel's decisions look at. */
export interface ScreenTurnInfo {
  prompt: string;
  startedAt: number;
  endedAt: number;
  interrupted: boolean;
}

/**
 * One session's channel to its agent: the events the agent's hooks hand to the daemon, and the
 * agent's own files read for the turn they name. Built per session by its AgentDefinition.
 */
export interface AgentChannel {
  readonly agent: AgentName;
  /** The agent's own session ID, once known (what `revive` resumes). */
  readonly agentSession: string | undefined;
  /** An event from the agent's hook (through `clippy-hook`): its name and payload text. */
  onEvent(event: string, payload: string): Promise<ChannelUpdate>;
  /**
   * Whether a report of this turn, which the screen completed first, is still to come (the
   * join then holds the turn for it). False for turns the agent never reports: interrupts,
   * its own slash commands.
   */
  expectsReport(turn: ScreenTurnInfo): boolean;
  /**
   * Channels without push (the agent runs no hook clippy can wire): reads the agent's record
   * of the turn the screen has just completed; null when it holds none.
   */
  readTurn?(turn: ScreenTurnInfo): Promise<ChannelTurn | null>;
  /**
   * Push channels whose agent also writes each turn's end to its own files (Claude Code's
   * transcript): its record of the turn the screen has just completed when the files already
   * say the turn ended, so the join need not wait for the hook's process to report it; null
   * when they do not (yet). A report it gave is not given again by the hook.
   */
  recorded?(turn: ScreenTurnInfo): Promise<ChannelTurn | null>;
  /**
   * The file `recorded` reads, once known: watched while the screen has a turn open, so that
   * its recorded end is read as it is written and the screen's settle is cut short.
   */
  recordPath?(): string | undefined;
  dispose(): void;
}

/** What the wiring gets: the session and the command line about to start. */
export interface WireContext {
  /** clippy's session ID (the hook entry names it to the daemon). */
  session: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The hook entry's command line for one event of this session's agent. */
  hook(event: string): string[];
  /**
   * A folder of this daemon's own (0700) where the wiring may write files for the session (a
   * settings file the agent is pointed at); they are removed when the session goes (`files`).
   */
  dir?: string;
}

/**
 * The wiring of one session (with the agent session it starts, when clippy chose it), or why it
 * was not wired (the session runs on the screen alone).
 */
export type Wiring =
  | {
      args: string[];
      env: Record<string, string>;
      agentSession?: string;
      /** Files the wiring wrote (in `dir`): removed when the session's channel goes. */
      files?: string[];
    }
  | { skipped: string };

/** What the channel reads with: the session's environment (the agent's homes) and folder. */
export interface ChannelContext {
  session: string;
  env: Record<string, string>;
  cwd: string;
  /** The agent session known before any event: chosen at wiring, or the one a revive resumes. */
  agentSession?: string;
}

/** One agent's channel: how it is wired per session, read, and resumed. */
export interface AgentDefinition {
  agent: AgentName;
  /**
   * How its command is recognised on a session's command line (its executables, its npm
   * packages): only there is the channel wired, through the wrappers clippy sees through.
   */
  identity: AgentIdentity;
  /**
   * Adds this session's wiring to the agent's own arguments and environment (never the user's
   * files): `ctx.args` are the agent's own (what follows its executable or script, wherever it
   * sits on the session's command line).
   */
  wire(ctx: WireContext): Wiring;
  channel(ctx: ChannelContext): AgentChannel;
  /** The agent's own arguments that resume its conversation `agentSession` (from the original ones). */
  resumeArgs(args: string[], agentSession: string): string[];
}
