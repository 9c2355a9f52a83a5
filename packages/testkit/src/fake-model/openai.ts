import type { ServerResponse } from 'node:http';
import { toolCalls, type CommonAnswer, type ModelRequest, type Usage } from './types.js';
import { openStream, pieces, sendEvent, sleep } from './sse.js';
import type { Hang, ParsedRequest } from './api.js';

/** The OpenAI Responses API as Codex uses it (`wire_api = "responses"`): `POST …/responses`, SSE. */

type Part = { type: string; text?: string };
type Item = {
  type?: string;
  role?: string;
  content?: string | Part[];
  output?: unknown;
  call_id?: string;
};

/** Messages Codex adds with the user's role (its context, AGENTS.md), not typed by the user. */
const AGENT_TEXT =
  /^(?:<(?:environment_context|user_instructions|user_shell_command|turn_aborted|permissions instructions|skills_instructions)\b|# AGENTS\.md instructions)/;

function textOf(content: Item['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? [])
    .filter((p) => p.type === 'input_text' || p.type === 'text' || p.type === 'output_text')
    .map((p) => p.text ?? '')
    .join('');
}

export function parseOpenAI(path: string, body: unknown): ParsedRequest | null {
  if (!/\/responses$/.test(path)) return null;
  const b = (body ?? {}) as { model?: string; stream?: boolean; tools?: unknown[]; input?: Item[] };
  const input = Array.isArray(b.input) ? b.input : [];
  let userText: string | null = null;
  let toolResult: string | null = null;
  // The latest input that is the user's or a tool's: what this request answers.
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]!;
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      toolResult = typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
      break;
    }
    if ((item.type === 'message' || item.type === undefined) && item.role === 'user') {
      const text = textOf(item.content);
      if (AGENT_TEXT.test(text.trimStart())) continue;
      userText = text;
      break;
    }
  }
  return {
    api: 'openai',
    model: b.model ?? '',
    stream: b.stream === true,
    conversation: (b.tools?.length ?? 0) > 0,
    userText,
    toolResult,
  };
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_fake${(++ids).toString().padStart(6, '0')}`;

const USAGE = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 10,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 22,
};

/** `usage` as the API sends it: an answer's own counts (reasoning is part of the output), else fixed ones. */
function usageOf(own: Usage | undefined) {
  if (!own) return USAGE;
  const output = (own.output ?? 0) + (own.thoughts ?? 0);
  return {
    input_tokens: own.input ?? 0,
    input_tokens_details: { cached_tokens: own.cached ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: own.thoughts ?? 0 },
    total_tokens: (own.input ?? 0) + output,
  };
}

/** An error answer as both OpenAI APIs (Responses, Chat Completions) send it. */
export function sendOpenAIError(
  res: ServerResponse,
  answer: { status: number; message?: string | undefined },
): void {
  res.writeHead(answer.status, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      error: {
        message: answer.message ?? `fake error ${answer.status}`,
        type: 'server_error',
        code: null,
      },
    }),
  );
}

export async function answerOpenAI(
  _req: ModelRequest,
  parsed: ParsedRequest,
  answer: CommonAnswer,
  res: ServerResponse,
  hang: Hang,
): Promise<void> {
  if (answer.kind === 'error') return sendOpenAIError(res, answer);
  const responseId = nextId('resp');
  const text = answer.text ?? '';
  const output: unknown[] = [];
  const message = (t: string) => ({
    type: 'message',
    id: nextId('msg'),
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: t, annotations: [] }],
  });
  const calls = toolCalls(answer).map((c) => ({
    type: 'function_call',
    id: nextId('fc'),
    call_id: nextId('call'),
    name: c.name,
    ...(c.namespace !== undefined ? { namespace: c.namespace } : {}),
    arguments: JSON.stringify(c.input),
    status: 'completed',
  }));
  const usage = usageOf(answer.kind === 'hang' ? undefined : answer.usage);
  if (!parsed.stream) {
    if (text) output.push(message(text));
    output.push(...calls);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: responseId,
        object: 'response',
        status: 'completed',
        model: parsed.model,
        output,
        usage,
      }),
    );
    return;
  }
  openStream(res);
  const response = { id: responseId, object: 'response', model: parsed.model };
  await sendEvent(res, {
    type: 'response.created',
    response: { ...response, status: 'in_progress' },
  });
  let index = 0;
  if (text || answer.kind === 'text') {
    const item = message(text);
    await sendEvent(res, {
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    const parts = answer.kind === 'text' ? pieces(text, answer.pieces ?? 4) : [text];
    for (const [i, delta] of parts.entries()) {
      if (i > 0 && answer.kind === 'text') await sleep(answer.pieceDelayMs ?? 0);
      await sendEvent(res, {
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        delta,
      });
    }
    if (answer.kind === 'hang') return hang(res);
    await sendEvent(res, { type: 'response.output_item.done', output_index: index, item });
    output.push(item);
    index++;
  } else if (answer.kind === 'hang') return hang(res);
  for (const call of calls) {
    await sendEvent(res, { type: 'response.output_item.added', output_index: index, item: call });
    await sendEvent(res, { type: 'response.output_item.done', output_index: index, item: call });
    output.push(call);
    index++;
  }
  await sendEvent(res, {
    type: 'response.completed',
    response: { ...response, status: 'completed', output, usage },
  });
  res.end();
}
