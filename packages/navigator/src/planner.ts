import type { FlightPlan, MapResult, RepoIndex } from '@clippy/repomap';
import type { ModelCallEvent, NavigatorState } from './state.js';
import type { ToolCall, ToolResult } from './tools.js';

/** What a planner sees each step: the state, the current map, and what its last calls did. */
export interface PlannerInput {
  state: Readonly<NavigatorState>;
  /** The step about to run (1-based). */
  step: number;
  /**
   * The current map. At step 1 of a planner that does not need the first map it is a blank
   * stand-in (no files, 0 tokens) and `ensureMap` renders the real one.
   */
  map: MapResult;
  /** Set while `map` is the stand-in: renders the map of the current plan. */
  ensureMap?: () => Promise<MapResult>;
  index: RepoIndex;
  /** file -> referenced file -> weight (from repomap). */
  graph: Map<string, Map<string, number>>;
  /** Results of the previous step's tool calls (errors included): the planner's feedback channel. */
  lastResults: ToolResult[];
  /** User feedback for this step (interactive `feedback:` or text relayed into the session). */
  feedback: string[];
  /** The plan as YAML, as the prompt and `plan` show it. */
  planYaml: string;
  /** Set when the user rejected the previous step (interactive `reject`): it was reverted. */
  rejection?: Rejection;
}

/** The user's rejection of a step: its change was undone, and the planner should not repeat it. */
export interface Rejection {
  step: number;
  /** What the rejected step did (its decisions' descriptions). */
  description: string;
  /** The user's reason, when one was given. */
  reason: string | null;
  /** The plan the rejected step had produced (now reverted). */
  rejectedPlan: FlightPlan;
}

export type PlannerOutcome =
  | {
      kind: 'calls';
      calls: ToolCall[];
      /** USD charged for this step's model call(s). */
      cost: number;
      /** Set when the model's answer held no usable call (malformed, text only): answered with this error. */
      problem?: string;
    }
  /** The next call would pass the cost limit: it was not made. */
  | { kind: 'budget_exceeded'; estimate: number; message: string }
  /** The model could not be reached (retries exhausted, auth error): the run ends with the best context so far. */
  | { kind: 'failed'; error: string; cost: number };

export interface PlannerHooks {
  /** Adds a model call to the run's timeline. */
  recordModelCall(event: ModelCallEvent): void;
}

/** The model settings a planner's calls use, as a run report's `settings` names them. */
export interface PlannerSettings {
  temperature?: number;
  top_p?: number;
  seed?: number | null;
  max_output_tokens?: number;
  /** The model's context window in tokens (null: not known for this model). */
  context_length?: number | null;
}

export interface Planner {
  readonly kind: 'gemini' | 'offline';
  /** The settings its model calls use (none for a planner without a model). */
  readonly settings?: PlannerSettings;
  /** Model name for reports (`offline` for the offline planner). */
  readonly model: string;
  /**
   * False for a planner whose first step plans from the index alone (the offline planner): the
   * map of the starting plan is then rendered only if something reads it before the first plan
   * change replaces it (on a 1,500-file repository, one whole ranked fit saved).
   */
  readonly needsFirstMap?: boolean;
  next(input: PlannerInput, hooks: PlannerHooks): Promise<PlannerOutcome>;
  dispose?(): void;
}
