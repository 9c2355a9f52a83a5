/** The model APIs the real agent CLIs talk to (`openai` is the Responses API, `openai-chat` Chat Completions). */
export type ModelApi = 'anthropic' | 'openai' | 'openai-chat' | 'gemini';

/**
 * The token counts an answer reports, each API saying them in its own words; an answer without
 * them reports small fixed counts (12 in, 10 out).
 */
export interface Usage {
  /** The prompt: Gemini's promptTokenCount, Anthropic's input_tokens, OpenAI's input/prompt tokens. */
  input?: number;
  /** The answer: Gemini's candidatesTokenCount, the others' output/completion tokens. */
  output?: number;
  /** Thinking: Gemini's thoughtsTokenCount, OpenAI's reasoning tokens (Anthropic counts it as output). */
  thoughts?: number;
  /** Read from the API's cache: Gemini's cachedContentTokenCount, the others' cached tokens. */
  cached?: number;
}

/** A tool call as the model sends it: the agent's own tool name and its arguments. */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /**
   * The OpenAI Responses API's namespace of the tool (`function_call.namespace`): Codex offers
   * an MCP server's tools as the functions of a namespace `mcp__SERVER`.
   */
  namespace?: string;
}

/** An answer that calls a tool (or several). */
export interface ToolCallAnswer extends ToolCall {
  kind: 'tool';
  /** Text the model says before calling the tool. */
  text?: string;
  /** More calls in the same answer, after this one: a model calling tools in parallel. */
  more?: ToolCall[];
  usage?: Usage;
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
      usage?: Usage;
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
    }
  | {
      /**
       * A function call the model could not form: Gemini answers it with no parts and the
       * finishReason MALFORMED_FUNCTION_CALL. The other APIs have no such answer: they refuse
       * it with a 500 naming it.
       */
      kind: 'malformed';
      message?: string;
      usage?: Usage;
    }
  | {
      /** Any JSON body, sent as it is (not streamed) with this status (default 200). */
      kind: 'raw';
      status?: number;
      body: unknown;
    };

/** What an API module answers: the server sends `raw` bodies itself. */
export type ApiAnswer = Exclude<Answer, { kind: 'raw' }>;
/** What every API can answer (the server refuses `malformed` for all but Gemini). */
export type CommonAnswer = Exclude<Answer, { kind: 'raw' | 'malformed' }>;

/** Every tool call of an answer, in order (none for an answer that calls no tool). */
export function toolCalls(answer: Answer): ToolCall[] {
  return answer.kind === 'tool' ? [answer, ...(answer.more ?? [])] : [];
}

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
