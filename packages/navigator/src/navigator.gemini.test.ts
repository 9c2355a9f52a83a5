import { indexRepository, type RepoIndex } from '@clippy/repomap';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type Usage,
} from '@clippy/testkit/fake-model/server';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RecordingBrokerLink } from './broker-link.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, GeminiPlanner } from './gemini-planner.js';
import { navigate, type NavigatorOptions } from './navigator.js';
import { costOf, resolvePricing } from './pricing.js';
import { renderCompact } from './render-turn-report.js';
import { navigatorRunReport } from './run-report.js';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const seedSchema = JSON.parse(
  readFileSync(new URL('../test/fixtures/turn-report.seed-schema.json', import.meta.url), 'utf8'),
) as object;
const docsSchemaPath = fileURLToPath(
  new URL('../../../docs/turn-report.schema.json', import.meta.url),
);

const ajv = new Ajv({ allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validators = [ajv.compile(seedSchema)];
if (existsSync(docsSchemaPath)) {
  validators.push(
    ajv.compile({ ...(JSON.parse(readFileSync(docsSchemaPath, 'utf8')) as object), $id: 'docs' }),
  );
}
function expectValidReport(report: unknown): void {
  for (const validate of validators) {
    const ok = validate(report);
    expect(validate.errors ?? [], JSON.stringify(report)).toEqual([]);
    expect(ok).toBe(true);
  }
}

const pricing = resolvePricing({
  model: 'gemini-2.5-flash',
  userPricingFile: '/nonexistent/pricing.json',
});
let index: RepoIndex;
let fake: FakeModel | undefined;

beforeAll(async () => {
  index = await indexRepository({ root: appRoot, cache: false });
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const usage: Usage = { input: 10_000, output: 500, thoughts: 1_500 };

/** An answer calling the navigator's functions (several: in one answer), with its token counts. */
function calls(list: { name: string; args: Record<string, unknown> }[], u = usage): Answer {
  const [first, ...more] = list.map((c) => ({ name: c.name, input: c.args }));
  return { kind: 'tool', ...first!, ...(more.length > 0 ? { more } : {}), usage: u };
}

async function run(
  script: Answer[],
  extra: Partial<NavigatorOptions> = {},
  countTokens?: () => number,
) {
  fake = await startFakeModel({
    script,
    // A script run out is an error the planner does not retry: a test ends, never loops.
    defaultAnswer: { kind: 'error', status: 400, message: 'no scripted answer left' },
    ...(countTokens ? { countTokens } : {}),
  });
  const planner = new GeminiPlanner({ apiKey: 'test', pricing, baseUrl: fake.url, backoffMs: 1 });
  return navigate({
    root: appRoot,
    index,
    goal: 'fix the token refresh bug in auth',
    planner,
    pricing,
    tokenBudget: 3000,
    ...extra,
  });
}

/** The prompt text of a recorded generateContent request. */
function promptOf(body: unknown): string {
  const b = body as { contents: { parts: { text?: string }[] }[] };
  return b.contents.flatMap((c) => c.parts.map((p) => p.text ?? '')).join('\n');
}

describe('navigator with the Gemini planner (fake server, real SDK)', () => {
  it('runs a scripted multi-step exploration: partial plan, RFC 6902 ops, finalize', async () => {
    const broker = new RecordingBrokerLink();
    const result = await run(
      [
        calls([
          {
            name: 'update_flight_plan',
            args: {
              reasoning: 'The auth module holds the token refresh code.',
              updates: { verbosity: [{ pattern: 'src/auth/**', level: 4 }] },
            },
          },
        ]),
        calls([
          {
            name: 'update_flight_plan',
            args: {
              reasoning: 'The HTTP client is what refresh calls.',
              updates: [
                {
                  op: 'add',
                  path: '/verbosity/-',
                  value: { pattern: 'src/http/*.ts', level: 3 },
                },
              ],
            },
          },
        ]),
        calls([{ name: 'finalize_context', args: { summary: 'auth in full, http as interface' } }]),
      ],
      { broker },
    );
    expect(result.error).toBeNull();
    expect(result.state.completion_reason).toBe('agent_done');
    expect(result.state.iterations).toBe(3);
    expect(result.state.flight_plan.verbosity).toEqual([
      { pattern: 'src/auth/**', level: 4 },
      { pattern: 'src/http/*.ts', level: 3 },
    ]);
    const level = (p: string) => result.map.files.find((f) => f.path === p)?.level;
    expect(level('src/auth/refresh.ts')).toBe(4);
    expect(level('src/http/client.ts')).toBe(3);
    expect(result.state.decision_log.map((d) => d.action)).toEqual([
      'update_flight_plan',
      'update_flight_plan',
      'finalize_context',
    ]);
    expect(result.state.decision_log[1]!.plan_change).toEqual([
      { op: 'add', path: '/verbosity/1', value: { pattern: 'src/http/*.ts', level: 3 } },
    ]);
    // Three model calls, each holding the tools and the state; later prompts carry the history.
    const reqs = fake!.conversation('gemini');
    expect(reqs).toHaveLength(3);
    const body0 = reqs[0]!.body as {
      tools: { functionDeclarations: { name: string }[] }[];
      systemInstruction: unknown;
    };
    expect(body0.tools[0]!.functionDeclarations.map((f) => f.name)).toEqual([
      'update_flight_plan',
      'finalize_context',
    ]);
    expect(body0.systemInstruction).toBeTruthy();
    // The tools travel as JSON Schema (updates: a partial plan or RFC 6902 operations).
    const decl = (
      body0.tools[0]!.functionDeclarations[0] as { parametersJsonSchema?: { required?: string[] } }
    ).parametersJsonSchema;
    expect(decl?.required).toEqual(['reasoning', 'updates']);
    expect((reqs[0]!.body as { toolConfig?: unknown }).toolConfig).toEqual({
      functionCallingConfig: {
        mode: 'ANY',
        allowedFunctionNames: ['update_flight_plan', 'finalize_context'],
      },
    });
    expect(promptOf(reqs[0]!.body)).toContain('fix the token refresh bug in auth');
    expect(promptOf(reqs[0]!.body)).toContain('(none yet)');
    expect(promptOf(reqs[2]!.body)).toContain('The HTTP client is what refresh calls.');
    expect(promptOf(reqs[2]!.body)).toContain('## src/auth/refresh.ts (L4)');
    // Reports: one per step, valid against the seed's schema; the broker saw them and the context.
    expect(result.reports).toHaveLength(3);
    result.reports.forEach(expectValidReport);
    expect(result.reports[2]!.is_complete).toBe(true);
    expect(result.reports[2]!.completion_reason).toBe('agent_done');
    // The tiny fixture fits whole at 3,000 tokens, so the focus may collapse to src/.
    expect(
      result.reports[0]!.focus_areas.some(
        (f) => f.path === 'src/' || f.path.startsWith('src/auth'),
      ),
    ).toBe(true);
    expect(broker.turns).toHaveLength(4);
    expect(broker.turns[3]).toBe(result.context);
    expect(broker.started && broker.closed).toBe(true);
    expect(result.context).toMatch(/^# Context: fix the token refresh bug in auth\n/);
    expect(result.context).toContain('- Completion: agent_done after 3 steps');
    const tools = result.timeline.filter((e) => e.type === 'tool_call');
    expect(tools.map((t) => t.succeeded)).toEqual([true, true, true]);
  });

  it('charges usage to the cent: prompt at the input price, candidates + thoughts at the output price', async () => {
    const result = await run([
      calls([
        {
          name: 'update_flight_plan',
          args: {
            reasoning: 'r',
            updates: { focus: { paths: [{ pattern: 'src/auth/**', weight: 5 }] } },
          },
        },
      ]),
      calls([{ name: 'finalize_context', args: { summary: 's' } }], { input: 12_345, output: 67 }),
    ]);
    // gemini-2.5-flash: $0.30 in, $2.50 out per 1M.
    const first = (10_000 * 0.3 + 2_000 * 2.5) / 1e6;
    const second = (12_345 * 0.3 + 67 * 2.5) / 1e6;
    expect(first).toBeCloseTo(0.008, 12);
    expect(result.state.budget.current_spend_usd).toBeCloseTo(first + second, 12);
    expect(result.reports[0]!.cost_this_turn).toBeCloseTo(first, 10);
    expect(result.reports[1]!.cost_this_turn).toBeCloseTo(second, 10);
    expect(result.reports[1]!.total_cost).toBeCloseTo(first + second, 10);
    expect(result.stats.input_tokens).toBe(22_345);
    expect(result.stats.output_tokens).toBe(2_067);
    expect(result.context).toContain(
      `- Cost: $${(first + second).toFixed(4)} (gemini-2.5-flash, 2 model calls)`,
    );
  });

  it('stops before a call that would pass the cost limit: the server never receives it', async () => {
    // Each call is estimated at 1,000 counted prompt tokens (+ the fixed part) and the output cap.
    const result = await run(
      [
        calls([
          {
            name: 'update_flight_plan',
            args: {
              reasoning: 'r',
              updates: { verbosity: [{ pattern: 'src/auth/**', level: 4 }] },
            },
          },
        ]),
        calls([{ name: 'finalize_context', args: { summary: 'never sent' } }]),
      ],
      { maxSpendUsd: 0.025 },
      () => 1_000,
    );
    const minEstimate = costOf(pricing, 1_000, DEFAULT_MAX_OUTPUT_TOKENS);
    expect(minEstimate).toBeLessThan(0.025);
    expect(0.008 + minEstimate).toBeGreaterThan(0.025);
    expect(fake!.conversation('gemini')).toHaveLength(1);
    expect(fake!.requests.filter((r) => r.path.endsWith(':countTokens'))).toHaveLength(2);
    expect(fake!.pending()).toBe(1);
    expect(result.state.completion_reason).toBe('budget_exceeded');
    expect(result.state.budget.current_spend_usd).toBeCloseTo(0.008, 12);
    expect(result.state.budget.current_spend_usd).toBeLessThanOrEqual(0.025);
    // The best context so far is delivered: the plan of step 1 stands.
    expect(result.map.files.find((f) => f.path === 'src/auth/refresh.ts')?.level).toBe(4);
    expect(result.context).toContain('- Completion: budget_exceeded');
    const last = result.reports.at(-1)!;
    expect(last.is_complete).toBe(true);
    expect(last.completion_reason).toBe('budget_exceeded');
    result.reports.forEach(expectValidReport);
  });

  it('never lets spend pass the cap when calls return long outputs (estimate = maxOutputTokens)', async () => {
    // Thinking-heavy answers: 7,500 output tokens a call, far above a 2,000-token allowance.
    const heavy: Usage = { input: 10_000, output: 500, thoughts: 7_000 };
    const perCall = costOf(pricing, 10_000, 7_500);
    const cap = 0.03;
    expect(perCall).toBeLessThan(cap);
    expect(2 * perCall).toBeGreaterThan(cap);
    const plan = (pattern: string) =>
      calls(
        [
          {
            name: 'update_flight_plan',
            args: { reasoning: 'r', updates: { verbosity: [{ pattern, level: 4 }] } },
          },
        ],
        heavy,
      );
    const result = await run(
      [plan('src/auth/**'), plan('src/**'), plan('**')],
      { maxSpendUsd: cap },
      () => 1_000,
    );
    expect(result.state.budget.current_spend_usd).toBeLessThanOrEqual(cap);
    expect(result.state.completion_reason).toBe('budget_exceeded');
    expect(fake!.conversation('gemini')).toHaveLength(1);
    const body = fake!.conversation('gemini')[0]!.body as {
      generationConfig?: { maxOutputTokens?: number };
    };
    expect(body.generationConfig?.maxOutputTokens).toBe(DEFAULT_MAX_OUTPUT_TOKENS);
    // The box shows the user's cap, not spend + remaining.
    const last = result.reports.at(-1)!;
    expect(last.budget_limit).toBe(cap);
    expect(renderCompact(last)).toContain(`of $${cap.toFixed(2)})`);
    result.reports.forEach(expectValidReport);
  });

  it("writes the calls' model settings into the run report's settings", async () => {
    const result = await run([calls([{ name: 'finalize_context', args: { summary: 'done' } }])]);
    const body = fake!.conversation('gemini')[0]!.body as {
      generationConfig?: { temperature?: number; topP?: number; maxOutputTokens?: number };
    };
    const report = navigatorRunReport(result);
    expect(report.settings).toMatchObject({
      max_turns: result.state.max_iterations,
      temperature: body.generationConfig?.temperature,
      top_p: body.generationConfig?.topP,
      seed: null,
      max_output_tokens: body.generationConfig?.maxOutputTokens,
      context_length: 1_048_576,
    });
    expect(typeof report.settings.temperature).toBe('number');
  });

  it('does not call at all when even the first call would pass the limit', async () => {
    const result = await run(
      [{ kind: 'text', text: 'unused' }],
      { maxSpendUsd: 0.001 },
      () => 1_000,
    );
    expect(fake!.conversation('gemini')).toHaveLength(0);
    expect(result.state.completion_reason).toBe('budget_exceeded');
    expect(result.context).toContain('# Context:');
    result.reports.forEach(expectValidReport);
  });

  it('retries a 429 and a 503, counts the retries, and succeeds', async () => {
    const result = await run([
      { kind: 'error', status: 429 },
      { kind: 'error', status: 503 },
      calls([{ name: 'finalize_context', args: { summary: 'ok' } }]),
    ]);
    expect(fake!.conversation('gemini')).toHaveLength(3);
    expect(result.stats.retries).toBe(2);
    const modelCalls = result.timeline.filter((e) => e.type === 'model_call');
    expect(modelCalls.map((c) => [c.retry, c.retry_reason ?? null])).toEqual([
      [true, 'rate_limit'],
      [true, 'server_error'],
      [false, null],
    ]);
    expect(result.state.completion_reason).toBe('agent_done');
    expect(result.state.budget.current_spend_usd).toBeCloseTo(0.008, 12);
  });

  it('ends with an error (and the context so far) on a non-retryable API error', async () => {
    const result = await run([{ kind: 'error', status: 403, message: 'API key not valid' }]);
    expect(fake!.conversation('gemini')).toHaveLength(1);
    expect(result.error).toContain('HTTP 403');
    expect(result.error).toContain('API key not valid');
    expect(result.context).toContain('# Context:');
  });

  it('answers malformed calls with an error, counts them, and carries on', async () => {
    const result = await run([
      { kind: 'malformed', usage },
      calls([{ name: 'delete_repository', args: {} }]),
      calls([{ name: 'update_flight_plan', args: { reasoning: 42 } }]),
      { kind: 'text', text: 'I think the map looks fine.', usage },
      calls([{ name: 'finalize_context', args: { summary: 'done' } }]),
    ]);
    expect(result.state.completion_reason).toBe('agent_done');
    expect(result.stats.malformed_calls).toBe(4);
    const prompts = fake!.conversation('gemini').map((r) => promptOf(r.body));
    expect(prompts[1]).toContain('could not be parsed');
    expect(prompts[2]).toContain('unknown function "delete_repository"');
    expect(prompts[3]).toContain('bad arguments');
    expect(prompts[4]).toContain('without calling a tool');
    expect(result.state.flight_plan).toEqual({ budget: 3000 });
    const failed = result.timeline.filter((e) => e.type === 'tool_call' && !e.succeeded);
    expect(failed).toHaveLength(2);
  });

  it('rejects an invalid plan change: plan unchanged, validation error sent back in the next request', async () => {
    const result = await run([
      calls([
        {
          name: 'update_flight_plan',
          args: { reasoning: 'zoom', updates: { verbosity: [{ pattern: 'src/**', level: 7 }] } },
        },
      ]),
      calls([
        {
          name: 'update_flight_plan',
          args: { reasoning: 'patch', updates: [{ op: 'replace', path: '/nope/0', value: 1 }] },
        },
      ]),
      calls([
        {
          name: 'update_flight_plan',
          args: { reasoning: 'more budget', updates: { budget: 99999 } },
        },
      ]),
      calls([{ name: 'finalize_context', args: { summary: 'done' } }]),
    ]);
    expect(result.state.flight_plan).toEqual({ budget: 3000 });
    expect(result.stats.rejected_changes).toBe(3);
    const prompts = fake!.conversation('gemini').map((r) => promptOf(r.body));
    expect(prompts[1]).toContain('REJECTED');
    expect(prompts[1]).toContain('level must be 0, 1, 2, 3 or 4');
    expect(prompts[2]).toContain('invalid JSON Patch');
    expect(prompts[3]).toContain('budget is fixed by the user');
    expect(result.state.decision_log[0]!.error).toContain('level must be');
    expect(result.reports[0]!.last_action).toContain('Rejected update_flight_plan');
  });

  it('stops at max_iterations and passes relayed feedback into the next prompt', async () => {
    const broker = new RecordingBrokerLink();
    const update = (pattern: string): Answer =>
      calls([
        {
          name: 'update_flight_plan',
          args: { reasoning: pattern, updates: { verbosity: [{ pattern, level: 3 }] } },
        },
      ]);
    const result = await run([update('src/auth/**'), update('src/billing/**')], {
      maxIterations: 2,
      broker,
      onTurn: (report) => {
        if (report.step_number === 1) broker.inject('look at billing too');
      },
    });
    expect(result.state.completion_reason).toBe('max_iterations');
    expect(result.state.iterations).toBe(2);
    const prompts = fake!.conversation('gemini').map((r) => promptOf(r.body));
    expect(prompts[0]).not.toContain('look at billing too');
    expect(prompts[1]).toContain('## User feedback (follow it)\n- look at billing too');
    expect(broker.states).toEqual([true, false, true, false]);
  });
});
