import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Gemini API server for tests: a real HTTP server on 127.0.0.1 that answers what
 * @google/genai 2.x sends (`generateContent`, `streamGenerateContent?alt=sse`, `countTokens`)
 * from a scripted queue, and records every request it received.
 *
 * Point the SDK at it with `new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } })`.
 */

/** Token counts reported back in `usageMetadata` (camelCase, as the API sends them). */
export interface FakeUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

export interface FakeFunctionCall {
  name: string;
  args?: Record<string, unknown>;
  id?: string;
}

/** One scripted answer to a generateContent / streamGenerateContent request. */
export type FakeResponse =
  | {
      kind?: 'reply';
      functionCalls?: FakeFunctionCall[];
      text?: string;
      usage?: FakeUsage;
      finishReason?: string;
    }
  | {
      /** An HTTP error with Google's error JSON body (`{error: {code, message, status}}`). */
      kind: 'error';
      status: number;
      message?: string;
      /** Google's status string; derived from the HTTP status when absent. */
      statusText?: string;
    }
  | {
      /** What the API returns when the model emits an unparsable call: no parts, finishReason MALFORMED_FUNCTION_CALL. */
      kind: 'malformed';
      message?: string;
      usage?: FakeUsage;
    }
  | {
      /** Any JSON body, sent as is with the given status (default 200). */
      kind: 'raw';
      status?: number;
      body: unknown;
    };

export type FakeGeminiAction = 'generateContent' | 'streamGenerateContent' | 'countTokens';

export interface RecordedRequest {
  method: string;
  /** path without the query string, e.g. `/v1beta/models/gemini-2.5-flash:generateContent` */
  path: string;
  query: Record<string, string>;
  model: string;
  action: FakeGeminiAction | string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined when the body was not JSON). */
  body: unknown;
  /** When it arrived (ms since epoch). */
  at: number;
}

export interface FakeGeminiOptions {
  responses?: FakeResponse[];
  /**
   * The totalTokens a countTokens request is answered with. Default: a rough count of the
   * request's text (characters / 4, rounded up), which is what tests need to be deterministic.
   */
  countTokens?: (body: unknown) => number;
}

export interface FakeGemini {
  /** Base URL for `httpOptions.baseUrl` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (countTokens included). */
  readonly requests: RecordedRequest[];
  /** Requests that asked for content (generate and stream), in order. */
  generateRequests(): RecordedRequest[];
  /** Adds answers to the end of the queue. */
  enqueue(...responses: FakeResponse[]): void;
  /** Scripted answers not yet used. */
  pending(): number;
  close(): Promise<void>;
  dispose(): Promise<void>;
}

/** Google's status strings for the HTTP errors tests script. */
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

/** Request bodies above this are refused: no test needs more, and it bounds memory. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(text);
}

function googleError(status: number, message: string, statusText?: string) {
  return {
    error: { code: status, message, status: statusText ?? STATUS_NAMES[status] ?? 'UNKNOWN' },
  };
}

function usageOf(usage: FakeUsage | undefined) {
  const u = {
    promptTokenCount: usage?.promptTokenCount ?? 0,
    candidatesTokenCount: usage?.candidatesTokenCount ?? 0,
    ...(usage?.thoughtsTokenCount !== undefined
      ? { thoughtsTokenCount: usage.thoughtsTokenCount }
      : {}),
    ...(usage?.cachedContentTokenCount !== undefined
      ? { cachedContentTokenCount: usage.cachedContentTokenCount }
      : {}),
  };
  return {
    ...u,
    totalTokenCount: u.promptTokenCount + u.candidatesTokenCount + (usage?.thoughtsTokenCount ?? 0),
  };
}

/** Builds the GenerateContentResponse JSON for a scripted reply or malformed call. */
function responseBody(r: FakeResponse, model: string): unknown {
  if (r.kind === 'malformed') {
    return {
      candidates: [
        {
          content: { role: 'model', parts: [] },
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage: r.message ?? 'Malformed function call: default_api.update_flight_plan(',
          index: 0,
        },
      ],
      usageMetadata: usageOf(r.usage),
      modelVersion: model,
    };
  }
  if (r.kind === 'raw' || r.kind === 'error') throw new Error('not a reply');
  const parts: unknown[] = [];
  if (r.text !== undefined) parts.push({ text: r.text });
  for (const fc of r.functionCalls ?? []) {
    parts.push({
      functionCall: { name: fc.name, args: fc.args ?? {}, ...(fc.id ? { id: fc.id } : {}) },
    });
  }
  return {
    candidates: [
      { content: { role: 'model', parts }, finishReason: r.finishReason ?? 'STOP', index: 0 },
    ],
    usageMetadata: usageOf(r.usage),
    modelVersion: model,
  };
}

/** Characters of every string in a JSON value, for the default countTokens answer. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + textLength(v), 0);
  if (value && typeof value === 'object') {
    return Object.values(value).reduce((n: number, v) => n + textLength(v), 0);
  }
  return 0;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a fake Gemini server on 127.0.0.1 (a free port). */
export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const queue: FakeResponse[] = [...(options.responses ?? [])];
  const requests: RecordedRequest[] = [];
  const countTokens = options.countTokens ?? ((body: unknown) => Math.ceil(textLength(body) / 4));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    // `/v1beta/models/gemini-2.5-flash:generateContent`
    const m = /^\/[^/]+\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
    const model = m?.[1] ?? '';
    const action = m?.[2] ?? '';
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      model,
      action,
      headers: { ...req.headers },
      body,
      at: Date.now(),
    });
    if (req.method !== 'POST' || !m) {
      sendJson(
        res,
        404,
        googleError(404, `fake-gemini: no route for ${req.method} ${url.pathname}`),
      );
      return;
    }
    if (body === undefined) {
      sendJson(res, 400, googleError(400, 'fake-gemini: request body is not JSON'));
      return;
    }
    if (action === 'countTokens') {
      sendJson(res, 200, { totalTokens: countTokens(body) });
      return;
    }
    if (action !== 'generateContent' && action !== 'streamGenerateContent') {
      sendJson(res, 404, googleError(404, `fake-gemini: unknown method ${action}`));
      return;
    }
    const next = queue.shift();
    if (!next) {
      // 400, not 5xx: a client that retries server errors must not loop on an exhausted script.
      sendJson(res, 400, googleError(400, 'fake-gemini: no scripted response left'));
      return;
    }
    if (next.kind === 'error') {
      sendJson(
        res,
        next.status,
        googleError(next.status, next.message ?? `fake error ${next.status}`, next.statusText),
      );
      return;
    }
    if (next.kind === 'raw') {
      sendJson(res, next.status ?? 200, next.body);
      return;
    }
    const payload = responseBody(next, model);
    if (action === 'streamGenerateContent') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(payload)}\r\n\r\n`);
      return;
    }
    sendJson(res, 200, payload);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, googleError(500, `fake-gemini: ${String(err)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    generateRequests: () =>
      requests.filter(
        (r) => r.action === 'generateContent' || r.action === 'streamGenerateContent',
      ),
    enqueue: (...responses) => void queue.push(...responses),
    pending: () => queue.length,
    close,
    dispose: close,
  };
}
