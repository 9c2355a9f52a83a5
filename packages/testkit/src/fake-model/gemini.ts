import type { ServerResponse } from 'node:http';
import { toolCalls, type ApiAnswer, type ModelRequest, type Usage } from './types.js';
import { openStream, pieces, sendEvent, sleep } from './sse.js';
import type { Hang, ParsedRequest } from './api.js';

/**
 * The Gemini API as Gemini CLI uses it: `POST /v1beta/models/M:streamGenerateContent?alt=sse`,
 * `:generateContent` (its JSON side questions) and `:countTokens`.
 */

/** Parts Gemini CLI adds to the first user message itself (its session context), not typed by the user. */
const AGENT_TEXT = /^<session_context>/;

type Part = { text?: string; functionResponse?: { response?: unknown }; thought?: boolean };
type Content = { role?: string; parts?: Part[] };
type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  enum?: unknown[];
  items?: Schema;
};

export function parseGemini(path: string, body: unknown): ParsedRequest | null {
  const m = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  if (!m) return null;
  const action = m[2]!;
  const b = (body ?? {}) as {
    contents?: Content[];
    tools?: unknown[];
    generationConfig?: {
      responseMimeType?: string;
      responseJsonSchema?: Schema;
      responseSchema?: Schema;
    };
  };
  const last = [...(b.contents ?? [])].reverse().find((c) => c.role === 'user');
  let userText: string | null = null;
  let toolResult: string | null = null;
  const parts = last?.parts ?? [];
  const responses = parts.filter((p) => p.functionResponse);
  if (responses.length)
    toolResult = responses.map((p) => JSON.stringify(p.functionResponse?.response)).join('\n');
  else if (parts.some((p) => typeof p.text === 'string'))
    userText = parts
      .filter((p) => typeof p.text === 'string' && !p.thought && !AGENT_TEXT.test(p.text))
      .map((p) => p.text)
      .join('');
  const gc = b.generationConfig ?? {};
  return {
    api: 'gemini',
    model: m[1]!,
    stream: action === 'streamGenerateContent',
    conversation: action !== 'countTokens' && (b.tools?.length ?? 0) > 0,
    userText,
    toolResult,
    special:
      action === 'countTokens'
        ? 'count_tokens'
        : gc.responseMimeType === 'application/json'
          ? 'json'
          : undefined,
    schema: gc.responseJsonSchema ?? gc.responseSchema,
  };
}

/**
 * A value that fits a side question's JSON schema. Gemini CLI asks who speaks next
 * (`next_speaker`: the user, so it stops) and which model to route to; every other field gets
 * its first allowed value.
 */
export function valueFor(schema: Schema | undefined, key = ''): unknown {
  if (!schema) return {};
  if (key === 'next_speaker') return 'user';
  if (schema.enum?.length) return schema.enum[0];
  switch ((schema.type ?? 'object').toLowerCase()) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, s]) => [k, valueFor(s, k)]),
      );
    case 'array':
      return [];
    case 'string':
      return 'fake';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

const USAGE = { promptTokenCount: 12, candidatesTokenCount: 10, totalTokenCount: 22 };

/** `usageMetadata` as the API sends it: an answer's own counts, else the fixed ones. */
function usageMetadata(usage: Usage | undefined) {
  if (!usage) return USAGE;
  const input = usage.input ?? 0;
  const output = usage.output ?? 0;
  return {
    promptTokenCount: input,
    candidatesTokenCount: output,
    ...(usage.thoughts !== undefined ? { thoughtsTokenCount: usage.thoughts } : {}),
    ...(usage.cached !== undefined ? { cachedContentTokenCount: usage.cached } : {}),
    totalTokenCount: input + output + (usage.thoughts ?? 0),
  };
}

/** Google's status strings for the HTTP errors tests answer with. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function chunk(parts: unknown[], model: string, finish?: string, usage?: Usage) {
  return {
    candidates: [
      { content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) },
    ],
    usageMetadata: usageMetadata(usage),
    modelVersion: model,
  };
}

export async function answerGemini(
  _req: ModelRequest,
  parsed: ParsedRequest,
  answer: ApiAnswer,
  res: ServerResponse,
  hang: Hang,
): Promise<void> {
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  if (answer.kind === 'error')
    return json(answer.status, {
      error: {
        code: answer.status,
        message: answer.message ?? `fake error ${answer.status}`,
        status: STATUS_NAMES[answer.status] ?? 'UNKNOWN',
      },
    });
  if (answer.kind === 'malformed') {
    const body = {
      candidates: [
        {
          content: { role: 'model', parts: [] },
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage:
            answer.message ?? 'Malformed function call: default_api.update_flight_plan(',
          index: 0,
        },
      ],
      usageMetadata: usageMetadata(answer.usage),
      modelVersion: parsed.model,
    };
    if (!parsed.stream) return json(200, body);
    openStream(res);
    await sendEvent(res, body);
    res.end();
    return;
  }
  if (parsed.special === 'json' && !parsed.conversation) {
    const body = chunk(
      [{ text: JSON.stringify(valueFor(parsed.schema as Schema)) }],
      parsed.model,
      'STOP',
    );
    if (!parsed.stream) return json(200, body);
    openStream(res);
    await sendEvent(res, body);
    res.end();
    return;
  }
  const text = answer.text ?? '';
  const calls = toolCalls(answer).map((c) => ({ functionCall: { name: c.name, args: c.input } }));
  const call = calls.length > 0;
  const usage = answer.kind === 'hang' ? undefined : answer.usage;
  if (!parsed.stream) {
    const parts: unknown[] = [];
    if (text) parts.push({ text });
    parts.push(...calls);
    return json(200, chunk(parts, parsed.model, 'STOP', usage));
  }
  openStream(res);
  const textParts = answer.kind === 'text' ? pieces(text, answer.pieces ?? 4) : text ? [text] : [];
  for (const [i, piece] of textParts.entries()) {
    if (i > 0 && answer.kind === 'text') await sleep(answer.pieceDelayMs ?? 0);
    const lastOne = i === textParts.length - 1 && !call && answer.kind !== 'hang';
    await sendEvent(
      res,
      chunk(
        [{ text: piece }],
        parsed.model,
        lastOne ? 'STOP' : undefined,
        lastOne ? usage : undefined,
      ),
    );
  }
  if (answer.kind === 'hang') return hang(res);
  if (call) await sendEvent(res, chunk(calls, parsed.model, 'STOP', usage));
  else if (textParts.length === 0)
    await sendEvent(res, chunk([{ text: '' }], parsed.model, 'STOP', usage));
  res.end();
}
