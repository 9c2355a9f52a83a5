import type { ServerResponse } from 'node:http';
import { toolCalls, type CommonAnswer, type ModelRequest, type Usage } from './types.js';
import { openStream, pieces, sendEvent, sleep } from './sse.js';
import type { Hang, ParsedRequest } from './api.js';
import { sendOpenAIError } from './openai.js';

/**
 * The OpenAI Chat Completions API (`POST …/chat/completions`), streaming and not, with usage:
 * what OpenAI-compatible agents speak (Qwen Code, OpenCode's `@ai-sdk/openai-compatible`,
 * Copilot CLI with an `openai` provider).
 */

type Part = { type?: string; text?: string };
type Message = {
  role?: string;
  content?: string | Part[] | null;
  tool_call_id?: string;
};

/**
 * Text the agents add to a user message themselves (reminders, environment context), never
 * typed by the user: left out of `userText` so tests compare what the user asked.
 */
const AGENT_PART = /^<(?:system-reminder|environment_context|env|context)\b/;

/**
 * Context Copilot CLI puts in front of the user's own text in the same part:
 * `<current_datetime>…</current_datetime>` and a blank line.
 */
const LEADING_CONTEXT = /^<current_datetime>[^<]*<\/current_datetime>\s*/u;

function partsOf(content: Message['content']): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

function userTextOf(content: Message['content']): string | null {
  const texts = partsOf(content)
    .filter((p) => (p.type === 'text' || p.type === undefined) && typeof p.text === 'string')
    .map((p) => p.text!.replace(LEADING_CONTEXT, ''))
    .filter((t) => !AGENT_PART.test(t.trimStart()));
  return texts.length > 0 ? texts.join('') : null;
}

export function parseOpenAIChat(path: string, body: unknown): ParsedRequest | null {
  if (!/\/chat\/completions$/.test(path)) return null;
  const b = (body ?? {}) as {
    model?: string;
    stream?: boolean;
    tools?: unknown[];
    messages?: Message[];
  };
  const messages = Array.isArray(b.messages) ? b.messages : [];
  let userText: string | null = null;
  let toolResult: string | null = null;
  // The latest message that is the user's or a tool's: what this request answers.
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      toolResult = partsOf(m.content)
        .map((p) => p.text ?? '')
        .join('');
      break;
    }
    if (m.role === 'user') {
      userText = userTextOf(m.content);
      if (userText !== null) break;
    }
  }
  return {
    api: 'openai-chat',
    model: b.model ?? '',
    stream: b.stream === true,
    conversation: (b.tools?.length ?? 0) > 0,
    userText,
    toolResult,
  };
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}-fake${(++ids).toString().padStart(6, '0')}`;

/** Token counts every answer reports: fixed, so tests can assert the sums an agent shows. */
export const CHAT_USAGE = { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 } as const;

/** `usage` as the API sends it: an answer's own counts (reasoning is part of the completion), else CHAT_USAGE. */
function usageOf(own: Usage | undefined) {
  if (!own) return CHAT_USAGE;
  const completion = (own.output ?? 0) + (own.thoughts ?? 0);
  return {
    prompt_tokens: own.input ?? 0,
    completion_tokens: completion,
    total_tokens: (own.input ?? 0) + completion,
    ...(own.cached !== undefined ? { prompt_tokens_details: { cached_tokens: own.cached } } : {}),
    ...(own.thoughts !== undefined
      ? { completion_tokens_details: { reasoning_tokens: own.thoughts } }
      : {}),
  };
}

export async function answerOpenAIChat(
  _req: ModelRequest,
  parsed: ParsedRequest,
  answer: CommonAnswer,
  res: ServerResponse,
  hang: Hang,
  streamUsage: boolean,
): Promise<void> {
  if (answer.kind === 'error') return sendOpenAIError(res, answer);
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const text = answer.text ?? '';
  const calls = toolCalls(answer).map((c) => ({
    id: nextId('call'),
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.input) },
  }));
  const usage = usageOf(answer.kind === 'hang' ? undefined : answer.usage);
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  if (!parsed.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: parsed.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text || null,
              ...(calls.length > 0 ? { tool_calls: calls } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      }),
    );
    return;
  }
  openStream(res);
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    sendEvent(res, {
      id,
      object: 'chat.completion.chunk',
      created,
      model: parsed.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
  await chunk({ role: 'assistant', content: '' });
  if (text) {
    const parts = answer.kind === 'text' ? pieces(text, answer.pieces ?? 4) : [text];
    for (const [i, delta] of parts.entries()) {
      if (i > 0 && answer.kind === 'text') await sleep(answer.pieceDelayMs ?? 0);
      await chunk({ content: delta });
    }
  }
  if (answer.kind === 'hang') return hang(res);
  for (const [index, call] of calls.entries()) {
    await chunk({
      tool_calls: [
        {
          index,
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: '' },
        },
      ],
    });
    await chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
  }
  await chunk({}, finish);
  // `stream_options.include_usage`: one last chunk with no choices carries the usage.
  if (streamUsage) {
    await sendEvent(res, {
      id,
      object: 'chat.completion.chunk',
      created,
      model: parsed.model,
      choices: [],
      usage,
    });
  }
  res.write('data: [DONE]\n\n');
  res.end();
}
