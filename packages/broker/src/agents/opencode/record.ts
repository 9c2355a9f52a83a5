import { num, obj, str, type Json } from '../records.js';

/**
 * OpenCode's own record of a session (checked on 1.18.33): its messages, read from the server
 * the session's OpenCode runs (`GET /session/<id>/message`, behind the basic auth of
 * OPENCODE_SERVER_PASSWORD, which the wiring sets). OpenCode keeps them in its SQLite database;
 * its server is the one reader of it that needs nothing but HTTP.
 */

/** Longest one read of the record may take (a loaded machine; the join waits meanwhile). */
export const OPENCODE_RECORD_WAIT_MS = 5_000;
/** The user name OpenCode's server takes when OPENCODE_SERVER_USERNAME is unset. */
const DEFAULT_USERNAME = 'opencode';
/** Hosts the password may be sent to: OpenCode's server on this machine, never elsewhere. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** One turn as the record holds it: the answer to a user message, by its last message. */
export interface OpenCodeRecordTurn {
  prompt: string;
  answer: string | null;
  model: string | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  cost: number | undefined;
  completedAt: number | undefined;
  aborted: boolean;
}

interface Message {
  info: Json;
  parts: Json[];
}

/** The text a message shows: its text parts, without the ones OpenCode adds itself. */
function textOf(m: Message): string {
  return m.parts
    .filter((p) => p.type === 'text' && p.synthetic !== true && p.ignored !== true)
    .map((p) => str(p.text) ?? '')
    .join('\n\n');
}

/** The messages of the API's answer (those it can read). */
export function messagesOf(data: unknown): Message[] {
  return (Array.isArray(data) ? data : [])
    .map((m) => obj(m))
    .filter((m): m is Json => !!m && !!obj(m.info) && Array.isArray(m.parts))
    .map((m) => ({
      info: m.info as Json,
      parts: (m.parts as unknown[]).map(obj).filter((p): p is Json => !!p),
    }));
}

/**
 * The turn whose last answer is the message `messageId`: the user message it answers, every
 * answer to it (tokens and cost summed over the model's calls), the last one with text. Null
 * when the record has no such answer.
 */
export function recordTurn(messages: Message[], messageId: string): OpenCodeRecordTurn | null {
  const last = messages.find((m) => m.info.id === messageId && m.info.role === 'assistant');
  const userId = str(last?.info.parentID);
  const user = messages.find((m) => m.info.id === userId && m.info.role === 'user');
  if (!last || !user) return null;
  const answers = messages.filter((m) => m.info.role === 'assistant' && m.info.parentID === userId);
  let input: number | undefined;
  let output: number | undefined;
  let cost: number | undefined;
  for (const a of answers) {
    const t = obj(a.info.tokens);
    const i = num(t?.input);
    const o = num(t?.output);
    const c = num(a.info.cost);
    if (i !== undefined) input = (input ?? 0) + i;
    if (o !== undefined) output = (output ?? 0) + o;
    if (c !== undefined) cost = (cost ?? 0) + c;
  }
  const withText = answers.findLast((a) => textOf(a) !== '');
  const provider = str(last.info.providerID);
  const model = str(last.info.modelID);
  return {
    prompt: textOf(user),
    answer: withText ? textOf(withText) : null,
    model: model && provider ? `${provider}/${model}` : model,
    inputTokens: input,
    outputTokens: output,
    cost,
    completedAt: num(obj(last.info.time)?.completed),
    aborted: obj(last.info.error)?.name === 'MessageAbortedError',
  };
}

/**
 * Reads session `session`'s messages from the OpenCode server at `serverUrl` (which the
 * session's plugin named: it must be on this machine), with the session's server credentials.
 * Throws with why when it cannot.
 */
export async function readMessages(
  serverUrl: string,
  session: string,
  env: Record<string, string>,
): Promise<Message[]> {
  const password = env.OPENCODE_SERVER_PASSWORD;
  if (!password) throw new Error('its server has no password (OPENCODE_SERVER_PASSWORD)');
  let base: URL;
  try {
    base = new URL(serverUrl);
  } catch {
    throw new Error(`its server's address (${serverUrl}) is not a URL`);
  }
  if (base.protocol !== 'http:' || !LOOPBACK.has(base.hostname))
    throw new Error(`its server (${base.host}) is not on this machine`);
  const user = env.OPENCODE_SERVER_USERNAME || DEFAULT_USERNAME;
  const url = new URL(`/session/${encodeURIComponent(session)}/message`, base);
  const res = await fetch(url, {
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
    signal: AbortSignal.timeout(OPENCODE_RECORD_WAIT_MS),
  });
  if (!res.ok) throw new Error(`its server answered ${res.status} for the session's messages`);
  return messagesOf(await res.json());
}
