import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { answerAnthropic, parseAnthropic } from './anthropic.js';
import type { ParsedRequest } from './api.js';
import { answerGemini, parseGemini } from './gemini.js';
import { answerOpenAI, parseOpenAI } from './openai.js';
import { answerOpenAIChat, parseOpenAIChat } from './openai-chat.js';
import type { Answer, ModelApi, ModelRequest, Responder } from './types.js';

export type {
  Answer,
  ModelApi,
  ModelRequest,
  Responder,
  ToolCall,
  ToolCallAnswer,
  Usage,
} from './types.js';

/**
 * One fake model server for the real agent CLIs under test: a real HTTP server on 127.0.0.1
 * that speaks the Anthropic Messages API (Claude Code), the OpenAI Responses API (Codex), the
 * OpenAI Chat Completions API (Qwen Code, OpenCode, Copilot CLI) and the Gemini API (Gemini CLI),
 * streaming and not. A conversation request is answered from the
 * responder, else the script, else the default answer; the agents' side requests (titles,
 * token counts, a quota probe, "who speaks next") get neutral answers. Every request is logged
 * with the exact text of the user's latest message, for tests to assert on. The navigator's
 * tests drive it through the real @google/genai SDK: token counts, several calls in one
 * answer, malformed calls, raw bodies and HTTP errors are answers of the script too.
 */

export interface FakeModelOptions {
  /** Decides a conversation request's answer first (undefined: the script, then the default). */
  respond?: Responder;
  /** Answers used in order, one per conversation request, after `respond`. */
  script?: Answer[];
  /** The answer when neither decides (default: the text `OK.`). */
  defaultAnswer?: Answer;
  /**
   * What a token count request (Gemini's `countTokens`, Anthropic's `count_tokens`) is
   * answered: default, a quarter of the request body's length.
   */
  countTokens?: (body: unknown) => number;
}

/** A request that matched none of the APIs (answered 404), kept to explain a failure. */
export interface UnknownRequest {
  method: string;
  path: string;
  at: number;
}

export interface FakeModel {
  /** Base URL, no trailing slash: `ANTHROPIC_BASE_URL`, `GOOGLE_GEMINI_BASE_URL`; Codex's provider takes `${url}/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request of the APIs, in order of arrival. */
  readonly requests: ModelRequest[];
  readonly unknown: UnknownRequest[];
  /** Conversation requests only (`api` narrows to one agent's). */
  conversation(api?: ModelApi): ModelRequest[];
  /** The user texts the model received in conversation requests, in order. */
  userTexts(api?: ModelApi): string[];
  /** Appends answers to the script. */
  script(...answers: Answer[]): void;
  /** Answers of the script not yet used. */
  pending(): number;
  /** Sets (or clears) the responder. */
  respondWith(respond: Responder | undefined): void;
  /**
   * Resolves with the first request (arrived from `since` on, default all) that satisfies
   * `match` — already logged or the next to arrive; rejects after `timeoutMs`.
   */
  waitFor(
    match: (r: ModelRequest) => boolean,
    opts?: { timeoutMs?: number; since?: number; answered?: boolean },
  ): Promise<ModelRequest>;
  /** Ends every stream held open by a `hang` answer. */
  releaseHanging(): void;
  close(): Promise<void>;
  dispose(): Promise<void>;
}

/** Default wait for a request: a real agent starting on a loaded 2-core machine takes seconds. */
export const FAKE_MODEL_WAIT_MS = 30_000;
/** Request bodies above this are refused: bounds memory (a 300-line question is ~30 KB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const DEFAULT_ANSWER: Answer = { kind: 'text', text: 'OK.' };
/** Neutral answer to a side request (a title, a topic check): never a scripted one. */
const SIDE_ANSWER: Answer = { kind: 'text', text: 'OK', pieces: 1 };

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

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}

/** The default token count: a quarter of the request body's length, as a rough tokenizer. */
function defaultCount(body: unknown): number {
  return Math.ceil(JSON.stringify(body ?? null).length / 4);
}

function parse(path: string, body: unknown): ParsedRequest | null {
  return (
    parseGemini(path, body) ??
    parseOpenAIChat(path, body) ??
    parseOpenAI(path, body) ??
    parseAnthropic(path, body)
  );
}

/** Starts the fake model on 127.0.0.1 (a free port). */
export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const queue: Answer[] = [...(opts.script ?? [])];
  let respond = opts.respond;
  const requests: ModelRequest[] = [];
  const unknown: UnknownRequest[] = [];
  const events = new EventEmitter();
  events.setMaxListeners(0);
  /** Streams answered with `hang`, from their arrival (their answer may not have reached the hang yet). */
  const hanging = new Map<ServerResponse, (() => void) | null>();
  const released = new WeakSet<ServerResponse>();
  const releaseAll = () => {
    for (const [res, release] of [...hanging]) {
      released.add(res);
      release?.();
    }
  };

  const hang = (res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const release = () => {
        hanging.delete(res);
        if (!res.writableEnded && !res.destroyed) res.end();
        resolve();
      };
      if (released.has(res) || res.destroyed) return release();
      hanging.set(res, release);
      res.once('close', release);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const parsed = req.method === 'POST' ? parse(url.pathname, body) : null;
    if (!parsed) {
      unknown.push({ method: req.method ?? '', path: url.pathname, at: performance.now() });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake-model: no route for ${url.pathname}` } }));
      return;
    }
    const record: ModelRequest = {
      seq: requests.length + 1,
      api: parsed.api,
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...req.headers },
      body,
      model: parsed.model,
      stream: parsed.stream,
      conversation: parsed.conversation,
      userText: parsed.userText,
      toolResult: parsed.toolResult,
      at: performance.now(),
    };
    requests.push(record);
    const answer = parsed.conversation
      ? (respond?.(record) ?? queue.shift() ?? opts.defaultAnswer ?? DEFAULT_ANSWER)
      : SIDE_ANSWER;
    record.answer = answer;
    if (answer.kind === 'hang') hanging.set(res, null);
    events.emit('request', record);
    res.once('finish', () => {
      record.answeredAt = performance.now();
      events.emit('answered', record);
    });
    if (parsed.special === 'count_tokens') {
      const tokens = (opts.countTokens ?? defaultCount)(body);
      return json(
        res,
        200,
        parsed.api === 'gemini' ? { totalTokens: tokens } : { input_tokens: tokens },
      );
    }
    if (answer.kind === 'raw') return json(res, answer.status ?? 200, answer.body);
    if (parsed.api === 'gemini') return answerGemini(record, parsed, answer, res, hang);
    if (answer.kind === 'malformed') {
      return json(res, 500, {
        error: { message: `fake-model: a malformed call is a Gemini answer, not ${parsed.api}'s` },
      });
    }
    if (parsed.api === 'openai-chat') {
      const usage = (body as { stream_options?: { include_usage?: boolean } } | undefined)
        ?.stream_options?.include_usage;
      await answerOpenAIChat(record, parsed, answer, res, hang, usage === true);
      return;
    }
    const answerWith = parsed.api === 'anthropic' ? answerAnthropic : answerOpenAI;
    await answerWith(record, parsed, answer, res, hang);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake-model: ${String(err)}` } }));
      } else res.destroy();
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
      releaseAll();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  const conversation = (api?: ModelApi) =>
    requests.filter((r) => r.conversation && (api === undefined || r.api === api));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    unknown,
    conversation,
    userTexts: (api) =>
      conversation(api)
        .map((r) => r.userText)
        .filter((t): t is string => t !== null),
    script: (...answers) => void queue.push(...answers),
    pending: () => queue.length,
    respondWith: (r) => void (respond = r),
    waitFor: (match, o = {}) => {
      const since = o.since ?? 0;
      const event = o.answered ? 'answered' : 'request';
      const ok = (r: ModelRequest) =>
        r.seq > since && match(r) && (!o.answered || r.answeredAt !== undefined);
      const found = requests.find(ok);
      if (found) return Promise.resolve(found);
      const timeoutMs = o.timeoutMs ?? FAKE_MODEL_WAIT_MS;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          events.off(event, listener);
          reject(
            new Error(
              `fake-model: no matching request within ${timeoutMs} ms; received: ${JSON.stringify(
                requests.map((r) => ({
                  seq: r.seq,
                  api: r.api,
                  conv: r.conversation,
                  user: r.userText?.slice(0, 80),
                  tool: r.toolResult?.slice(0, 80),
                })),
              )}`,
            ),
          );
        }, timeoutMs);
        const listener = (r: ModelRequest) => {
          if (!ok(r)) return;
          clearTimeout(timer);
          events.off(event, listener);
          resolve(r);
        };
        events.on(event, listener);
      });
    },
    releaseHanging: releaseAll,
    close,
    dispose: close,
  };
}
