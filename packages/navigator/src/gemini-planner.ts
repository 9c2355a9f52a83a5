import { countTokens } from '@clippy/repomap';
import type {
  FunctionCallingConfigMode,
  GenerateContentParameters,
  GenerateContentResponse,
  GoogleGenAI,
} from '@google/genai';
import type {
  Planner,
  PlannerHooks,
  PlannerInput,
  PlannerOutcome,
  PlannerSettings,
} from './planner.js';
import { costOf } from './pricing.js';
import { buildPrompt, SYSTEM_INSTRUCTION } from './prompt.js';
import type { Pricing } from './state.js';
import { TOOL_DECLARATIONS, TOOL_NAMES } from './tools.js';

/**
 * Cap on a call's output (answer + thinking): the pre-call cost check assumes a call may use all
 * of it, so spend can never pass --max-cost. A flight-plan call needs far less than this.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8192;
/** Sampling temperature: low, so the same goal and map give the same plan as far as the model allows. */
export const DEFAULT_TEMPERATURE = 0.2;
/** Nucleus sampling: Gemini's own default, sent so the run report says what was used. */
export const DEFAULT_TOP_P = 0.95;
/** Input windows of the Gemini models clippy prices (tokens); other models: unknown (null). */
const CONTEXT_WINDOWS: Record<string, number> = {
  'gemini-2.5-pro': 1_048_576,
  'gemini-2.5-flash': 1_048_576,
  'gemini-2.5-flash-lite': 1_048_576,
  'gemini-2.0-flash': 1_048_576,
};
/** Attempts per step for 429 and 5xx answers: rate limits usually clear within a few seconds. */
export const MAX_ATTEMPTS = 5;
/** First backoff delay; doubled per retry (with jitter) up to MAX_BACKOFF_MS. */
export const BASE_BACKOFF_MS = 1000;
/** Longest single wait between attempts: longer waits look like a hang to the user. */
export const MAX_BACKOFF_MS = 16_000;
import { DEFAULT_MODEL } from './defaults.js';
export { DEFAULT_MODEL };

export interface GeminiPlannerOptions {
  apiKey: string;
  model?: string;
  pricing: Pricing;
  /** SDK base URL (tests point it at the fake server; GEMINI_BASE_URL). */
  baseUrl?: string;
  /** Backoff base in ms (tests shorten it). */
  backoffMs?: number;
  /** Count input tokens with the server's countTokens (default) or only locally (o200k). */
  countWith?: 'server' | 'o200k';
  /** Injected sleep, for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** The call's maxOutputTokens (answer + thinking); DEFAULT_MAX_OUTPUT_TOKENS by default. */
  maxOutputTokens?: number;
  /** Sampling seed sent with every call (default: none, the server picks). */
  seed?: number;
}

type Sdk = typeof import('@google/genai');
let sdk: Promise<Sdk> | undefined;
/** The SDK, loaded at the first call: an offline run never pays for loading it. */
const loadSdk = () => (sdk ??= import('@google/genai'));

/** An HTTP error the SDK raised (its ApiError), with the status it carries. */
function apiError(err: unknown): { status: number; message: string } | undefined {
  return err instanceof Error &&
    err.name === 'ApiError' &&
    typeof (err as { status?: unknown }).status === 'number'
    ? (err as Error & { status: number })
    : undefined;
}

function isRetryable(err: unknown): boolean {
  const api = apiError(err);
  if (api) return api.status === 429 || api.status >= 500;
  // Network failures (connection reset, DNS) surface as TypeError from fetch: worth a retry.
  return err instanceof TypeError;
}

function errorText(err: unknown): string {
  const api = apiError(err);
  if (api) {
    let detail = api.message;
    try {
      const parsed = JSON.parse(api.message.replace(/^[^{]*/, '')) as {
        error?: { message?: string };
      };
      detail = parsed.error?.message ?? detail;
    } catch {
      // not JSON: keep the message
    }
    return `HTTP ${api.status}: ${detail.slice(0, 300)}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The Gemini planner: one generateContent call with function calling per step. */
export class GeminiPlanner implements Planner {
  readonly kind = 'gemini' as const;
  readonly model: string;
  private client: Promise<GoogleGenAI> | undefined;
  private readonly clientOptions: { apiKey: string; httpOptions?: { baseUrl: string } };
  private readonly pricing: Pricing;
  private readonly backoffMs: number;
  private readonly countWith: 'server' | 'o200k';
  private readonly sleep: (ms: number) => Promise<void>;
  /** Tokens of the system instruction and tool declarations (sent every call; counted locally once). */
  private readonly fixedTokens: number;
  /** The call's output cap, sent as maxOutputTokens. */
  readonly maxOutputTokens: number;
  /** What every call sends, as the run report's settings name it. */
  readonly settings: PlannerSettings;
  private readonly seed: number | undefined;
  /** Largest output (answer + thinking) a call has returned so far. */
  private largestOutput = 0;

  constructor(opts: GeminiPlannerOptions) {
    this.model = opts.model ?? DEFAULT_MODEL;
    this.pricing = opts.pricing;
    this.backoffMs = opts.backoffMs ?? BASE_BACKOFF_MS;
    this.countWith = opts.countWith ?? 'server';
    this.maxOutputTokens = opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    this.seed = opts.seed;
    this.settings = {
      temperature: DEFAULT_TEMPERATURE,
      top_p: DEFAULT_TOP_P,
      seed: this.seed ?? null,
      max_output_tokens: this.maxOutputTokens,
      context_length: CONTEXT_WINDOWS[this.model] ?? null,
    };
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.clientOptions = {
      apiKey: opts.apiKey,
      ...(opts.baseUrl ? { httpOptions: { baseUrl: opts.baseUrl } } : {}),
    };
    this.fixedTokens =
      countTokens(SYSTEM_INSTRUCTION) + countTokens(JSON.stringify(TOOL_DECLARATIONS));
  }

  private ai(): Promise<GoogleGenAI> {
    return (this.client ??= loadSdk().then(
      ({ GoogleGenAI }) => new GoogleGenAI(this.clientOptions),
    ));
  }

  private request(prompt: string): GenerateContentParameters {
    return {
      model: this.model,
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      config: {
        systemInstruction: SYSTEM_INSTRUCTION,
        maxOutputTokens: this.maxOutputTokens,
        temperature: DEFAULT_TEMPERATURE,
        topP: DEFAULT_TOP_P,
        ...(this.seed !== undefined ? { seed: this.seed } : {}),
        tools: [{ functionDeclarations: TOOL_DECLARATIONS }],
        // ANY: the model must answer with a call; prose answers cost money and do nothing.
        toolConfig: {
          functionCallingConfig: {
            mode: 'ANY' as FunctionCallingConfigMode,
            allowedFunctionNames: [...TOOL_NAMES],
          },
        },
      },
    };
  }

  /**
   * Input tokens of a request. The Gemini API's countTokens takes only `contents` (the SDK
   * refuses systemInstruction/tools there), so the prompt is counted by the server and the fixed
   * part locally with o200k; if countTokens fails, everything is counted with o200k.
   */
  private async estimateInput(
    prompt: string,
  ): Promise<{ tokens: number; source: 'server' | 'o200k' }> {
    if (this.countWith === 'server') {
      try {
        const res = await (
          await this.ai()
        ).models.countTokens({
          model: this.model,
          contents: [{ role: 'user', parts: [{ text: prompt }] }],
        });
        if (typeof res.totalTokens === 'number') {
          return { tokens: res.totalTokens + this.fixedTokens, source: 'server' };
        }
      } catch {
        // fall through to the local estimate
      }
    }
    return { tokens: countTokens(prompt) + this.fixedTokens, source: 'o200k' };
  }

  async next(input: PlannerInput, hooks: PlannerHooks): Promise<PlannerOutcome> {
    const prompt = buildPrompt(input);
    const budget = input.state.budget;
    const est = await this.estimateInput(prompt);
    // The worst case the call may cost: its output cap, or more if a call ever returned more
    // (thinking tokens are billed as output and a server may not count them against the cap).
    const outputAllowance = Math.max(this.maxOutputTokens, this.largestOutput);
    const estimate = costOf(this.pricing, est.tokens, outputAllowance);
    if (budget.current_spend_usd + estimate > budget.max_spend_usd) {
      return {
        kind: 'budget_exceeded',
        estimate,
        message: `the next call (~${est.tokens} input tokens + ${outputAllowance} output, ~$${estimate.toFixed(4)}) would pass the $${budget.max_spend_usd.toFixed(2)} limit ($${budget.current_spend_usd.toFixed(4)} spent)`,
      };
    }
    const request = this.request(prompt);
    // What every model_call event of this step says, whether the call failed or not.
    const callFields = (started: number) => ({
      type: 'model_call' as const,
      step: input.step,
      started_at: new Date(started).toISOString(),
      duration_ms: Date.now() - started,
      model: this.model,
      prompt_tokens_estimate: est.tokens,
      estimate_source: est.source,
    });
    let lastError = '';
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const started = Date.now();
      let response: GenerateContentResponse;
      try {
        response = await (await this.ai()).models.generateContent(request);
      } catch (err) {
        lastError = errorText(err);
        const retry = isRetryable(err) && attempt < MAX_ATTEMPTS;
        hooks.recordModelCall({
          ...callFields(started),
          prompt_tokens: 0,
          output_tokens: 0,
          thoughts_tokens: 0,
          cost: 0,
          finish_reason: null,
          retry,
          retry_reason: !apiError(err)
            ? 'network'
            : apiError(err)!.status === 429
              ? 'rate_limit'
              : 'server_error',
          error: lastError,
        });
        if (!retry) return { kind: 'failed', error: `Gemini call failed: ${lastError}`, cost: 0 };
        const delay = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 ** (attempt - 1));
        await this.sleep(delay / 2 + Math.random() * (delay / 2));
        continue;
      }
      const usage = response.usageMetadata;
      const promptTokens = usage?.promptTokenCount ?? 0;
      const outputTokens = usage?.candidatesTokenCount ?? 0;
      const thoughts = usage?.thoughtsTokenCount ?? 0;
      const cost = costOf(this.pricing, promptTokens, outputTokens + thoughts);
      this.largestOutput = Math.max(this.largestOutput, outputTokens + thoughts);
      const candidate = response.candidates?.[0];
      const finish = candidate?.finishReason ?? null;
      hooks.recordModelCall({
        ...callFields(started),
        prompt_tokens: promptTokens,
        output_tokens: outputTokens,
        thoughts_tokens: thoughts,
        cost,
        finish_reason: finish,
        retry: false,
      });
      const calls = (response.functionCalls ?? []).map((fc) => ({
        name: fc.name ?? '',
        args: fc.args ?? {},
      }));
      if (calls.length > 0) return { kind: 'calls', calls, cost };
      const problem =
        finish === 'MALFORMED_FUNCTION_CALL'
          ? `your function call could not be parsed (${candidate?.finishMessage ?? 'malformed'}); call update_flight_plan or finalize_context with valid JSON arguments`
          : `you answered without calling a tool${response.text ? ` ("${response.text.slice(0, 120)}")` : ''}; call update_flight_plan or finalize_context`;
      return { kind: 'calls', calls: [], cost, problem };
    }
    return { kind: 'failed', error: `Gemini call failed: ${lastError}`, cost: 0 };
  }
}
