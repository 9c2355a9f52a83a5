/** The model APIs the real agent CLIs talk to (`openai` is the Responses API, `openai-chat` Chat Completions). */
export type ModelApi = 'anthropic' | 'openai' | 'openai-chat' | 'gemini';

/** A tool call as the model sends it: the agent's own tool name and its arguments. */
export interface ToolCallAnswer {
  kind: 'tool';
  name: string;
  input: Record<string, unknown>;
  /**
   * The OpenAI Responses API's namespace of the tool (`function_call.namespace`): Codex offers
   * an MCP server's tools as the functions of a namespace `mcp__SERVER`.
   */
  namespace?: string;
  /** Text the model says before calling the tool. */
  text?: string;
}

/** What the fake model answers to one request. */
export type Answer =
  | {
      kind: 'text';
      text: string;
      /** Streamed in this many pieces (default 4): agents render a stream as it arrives. */
      pieces?: number;
      /** Pause between two pieces (default 0). */
      pieceDelayMs?: number;
    }
  | ToolCallAnswer
  | {
      /**
       * The stream opens (and `text` is sent, if any) but never ends until the agent drops the
       * connection or `releaseHanging()` is called: a model that is still thinking, for
       * interrupt tests.
       */
      kind: 'hang';
      text?: string;
    }
  | {
      /** An HTTP error with the API's own error body. */
      kind: 'error';
      status: number;
      message?: string;
    };

/** One request the fake model received, with what the tests assert on. */
export interface ModelRequest {
  /** Order of arrival, from 1. */
  seq: number;
  api: ModelApi;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The model the agent asked for. */
  model: string;
  /** Whether the answer was asked for as a stream (SSE). */
  stream: boolean;
  /**
   * A turn of the agent's conversation (it offers tools): what the user typed reaches the
   * model here. Other requests are the agent's own housekeeping (titles, token counts, a
   * "who speaks next" check, a quota probe) and get a neutral answer, never a scripted one.
   */
  conversation: boolean;
  /**
   * The text of the latest user message exactly as the model received it, the agent's own
   * additions (system reminders, environment context) left out; null when the latest input
   * is a tool's result or there is no user message.
   */
  userText: string | null;
  /** The latest input is the result of a tool call (the agent ran or refused it). */
  toolResult: string | null;
  /** When it arrived (performance.now() of the test process). */
  at: number;
  /** What it was answered (once answered). */
  answer?: Answer;
  /** When the last byte of the answer was written (performance.now()); unset while streaming. */
  answeredAt?: number;
}

/** Decides the answer to a conversation request; undefined leaves it to the script or the default. */
export type Responder = (req: ModelRequest) => Answer | undefined;
