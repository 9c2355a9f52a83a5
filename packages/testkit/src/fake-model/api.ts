import type { ServerResponse } from 'node:http';
import type { ModelApi } from './types.js';

/** What an API module reads from a request before it is answered. */
export interface ParsedRequest {
  api: ModelApi;
  model: string;
  stream: boolean;
  conversation: boolean;
  userText: string | null;
  toolResult: string | null;
  /** A request with a fixed kind of answer (a token count, a JSON side question). */
  special?: 'count_tokens' | 'json' | undefined;
  /** The JSON schema a side question's answer must follow (Gemini). */
  schema?: unknown;
}

/** Keeps a stream open until the agent drops it or the test releases it; resolves then. */
export type Hang = (res: ServerResponse) => Promise<void>;
