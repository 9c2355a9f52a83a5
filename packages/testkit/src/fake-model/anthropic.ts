import type { ServerResponse } from 'node:http';
import { toolCalls, type CommonAnswer, type ModelRequest, type Usage } from './types.js';
import { openStream, pieces, sendEvent, sleep } from './sse.js';
import type { Hang, ParsedRequest } from './api.js';

/**
 * The Anthropic Messages API as Claude Code uses it: `POST /v1/messages` (SSE when
 * `stream: true`, JSON otherwise) and `POST /v1/messages/count_tokens`.
 */

type Block = { type: string; text?: string; content?: unknown; tool_use_id?: string };
type Message = { role: string; content: string | Block[] };

/** Text blocks Claude Code adds to a user message itself (context, reminders), not typed by the user. */
const AGENT_TEXT = /^<(?:system-reminder|command-name|local-command-stdout|command-message)>/;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((b: Block) => (typeof b === 'string' ? b : b.type === 'text' ? (b.text ?? '') : ''))
      .join('\n');
  return '';
}

export function parseAnthropic(path: string, body: unknown): ParsedRequest | null {
  if (!/\/v1\/messages(?:\/count_tokens)?$/.test(path)) return null;
  const b = (body ?? {}) as {
    model?: string;
    stream?: boolean;
    tools?: unknown[];
    messages?: Message[];
  };
  const countTokens = path.endsWith('/count_tokens');
  const messages = b.messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  let userText: string | null = null;
  let toolResult: string | null = null;
  if (last) {
    if (typeof last.content === 'string') userText = last.content;
    else {
      const results = last.content.filter((x) => x.type === 'tool_result');
      if (results.length) toolResult = results.map((r) => textOf(r.content)).join('\n');
      else {
        const typed = last.content.filter(
          (x) => x.type === 'text' && !AGENT_TEXT.test((x.text ?? '').trimStart()),
        );
        userText = typed.length ? typed.map((x) => x.text ?? '').join('\n') : null;
      }
    }
  }
  return {
    api: 'anthropic',
    model: b.model ?? '',
    stream: b.stream === true,
    // Claude Code's own side requests (a quota probe, titles, topic checks) offer no tools.
    conversation: !countTokens && (b.tools?.length ?? 0) > 0,
    userText,
    toolResult,
    special: countTokens ? 'count_tokens' : undefined,
  };
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_fake${(++ids).toString().padStart(6, '0')}`;

/** `usage` as the API sends it: an answer's own counts (thinking is output here), else fixed ones. */
function usage(outputTokens: number, own?: Usage) {
  return {
    input_tokens: own ? (own.input ?? 0) : 12,
    output_tokens: own ? (own.output ?? 0) + (own.thoughts ?? 0) : outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: own?.cached ?? 0,
  };
}

export async function answerAnthropic(
  _req: ModelRequest,
  parsed: ParsedRequest,
  answer: CommonAnswer,
  res: ServerResponse,
  hang: Hang,
): Promise<void> {
  if (answer.kind === 'error') {
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        type: 'error',
        error: { type: 'api_error', message: answer.message ?? `fake error ${answer.status}` },
      }),
    );
    return;
  }
  const id = nextId('msg');
  const text = answer.text ?? '';
  const tools = toolCalls(answer).map((c) => ({
    type: 'tool_use',
    id: nextId('toolu'),
    name: c.name,
    input: c.input,
  }));
  const own = answer.kind === 'hang' ? undefined : answer.usage;
  const stopReason = tools.length > 0 ? 'tool_use' : 'end_turn';
  if (!parsed.stream) {
    const content: unknown[] = [];
    if (text) content.push({ type: 'text', text });
    content.push(...tools);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model: parsed.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: usage(10, own),
      }),
    );
    return;
  }
  openStream(res);
  await sendEvent(
    res,
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: parsed.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(1, own && { ...own, output: 1, thoughts: 0 }),
      },
    },
    'message_start',
  );
  let index = 0;
  if (text || answer.kind === 'text') {
    await sendEvent(
      res,
      { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    const parts = answer.kind === 'text' ? pieces(text, answer.pieces ?? 4) : [text];
    for (const [i, piece] of parts.entries()) {
      if (i > 0 && answer.kind === 'text') await sleep(answer.pieceDelayMs ?? 0);
      await sendEvent(
        res,
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } },
        'content_block_delta',
      );
    }
    if (answer.kind === 'hang') return hang(res);
    await sendEvent(res, { type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  } else if (answer.kind === 'hang') return hang(res);
  for (const tool of tools) {
    await sendEvent(
      res,
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
      },
      'content_block_start',
    );
    await sendEvent(
      res,
      {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) },
      },
      'content_block_delta',
    );
    await sendEvent(res, { type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  }
  await sendEvent(
    res,
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage(10, own).output_tokens },
    },
    'message_delta',
  );
  await sendEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}
