import { describe, it, expect } from 'vitest';
import { compileDocSchema, schemaErrors } from '../test/json-schema.js';
import { ReportValidationError } from './errors.js';
import { RunReportBuilder, serializeRunReport } from './run-report-builder.js';
import { RunReportSchema, type RunReport } from './run-report-schema.js';

const validate = compileDocSchema('run-report.schema.json');
const END = new Date('2026-02-25T14:30:00.123Z');

function newBuilder(): RunReportBuilder {
  return new RunReportBuilder({
    task: 'Refactor the error handling in src/api.py',
    model: 'gemini-2.5-flash',
    provider: 'gemini',
    settings: { temperature: 0.2, max_turns: 10, seed: null, clippy: { token_budget: 20000 } },
  });
}

/** A run touching every event kind: 3 turns, a retry after compaction, failed tools, guardrails. */
function busyRun(): RunReportBuilder {
  const b = newBuilder();
  b.startTurn();
  b.recordLlmCall({ durationS: 1.23456, promptTokensEst: 1200, finishReason: 'tool_calls' });
  b.recordToolCall({
    name: 'read_file',
    arguments: { path: 'src/api.py' },
    succeeded: true,
    durationS: 0.0041,
    resultLength: 512,
  });
  b.recordToolCall({
    name: 'edit_file',
    arguments: null,
    succeeded: false,
    durationS: 0.0006,
    resultLength: 0,
    error: 'invalid JSON in arguments',
  });
  b.startTurn();
  b.recordLlmCall({ durationS: 0.1, promptTokensEst: 130000, finishReason: 'context_overflow' });
  b.recordCompaction({ strategy: 'compact_messages', tokensBefore: 130000, tokensAfter: 64000 });
  b.recordLlmCall({
    durationS: 0.2,
    promptTokensEst: 64000,
    finishReason: 'length',
    isRetry: true,
    retryReason: 'compact_messages',
  });
  b.recordTruncatedResponse();
  b.recordToolCall({
    name: 'edit_file',
    arguments: { path: 'src/api.py' },
    succeeded: false,
    durationS: 0.002,
    resultLength: 30,
    error: 'old_string not found',
  });
  b.recordGuardrail({ tool: 'edit_file', level: 'nudge' });
  b.startTurn();
  b.recordCompaction({ strategy: 'drop_middle_turns', tokensBefore: 64000, tokensAfter: 20000 });
  b.recordGuardrail({ tool: 'edit_file', level: 'stop' });
  b.recordToolCall({
    name: 'read_file',
    arguments: { path: 'README.md' },
    succeeded: true,
    durationS: 0.01,
    resultLength: 100,
    clippy: { cached: true },
  });
  b.recordLlmCall({ durationS: 2.5, promptTokensEst: 21000, finishReason: 'stop' });
  return b;
}

describe('RunReportBuilder', () => {
  it('computes every stat from the timeline and validates against the JSON Schema', () => {
    const report = busyRun().finish({ outcome: 'success', answer: 'Done.', timestamp: END });
    expect(schemaErrors(validate, report)).toBe('');
    expect(report.version).toBe(1);
    expect(report.timestamp).toBe('2026-02-25T14:30:00.123Z');
    expect(report.result).toEqual({ outcome: 'success', answer: 'Done.', exit_code: 0 });
    expect(report.stats).toEqual({
      turns: 3,
      llm_calls: 4,
      // 1.235 + 0.1 + 0.2 + 2.5, rounded event by event then summed.
      total_llm_time_s: 4.035,
      // 0.004 + 0.001 + 0.002 + 0.01
      total_tool_time_s: 0.017,
      tool_calls_total: 4,
      tool_calls_succeeded: 2,
      tool_calls_failed: 2,
      tool_calls_by_name: {
        read_file: { succeeded: 2, failed: 0 },
        edit_file: { succeeded: 0, failed: 2 },
      },
      compactions: 1,
      turn_drops: 1,
      guardrail_interventions: 2,
      truncated_responses: 1,
    });
    expect(report.timeline.map((e) => `${e.turn}:${e.type}`)).toEqual([
      '1:llm_call',
      '1:tool_call',
      '1:tool_call',
      '2:llm_call',
      '2:compaction',
      '2:llm_call',
      '2:truncated_response',
      '2:tool_call',
      '2:guardrail',
      '3:compaction',
      '3:guardrail',
      '3:tool_call',
      '3:llm_call',
    ]);
    expect(report.timeline[0]).toEqual({
      turn: 1,
      type: 'llm_call',
      duration_s: 1.235,
      prompt_tokens_est: 1200,
      finish_reason: 'tool_calls',
      is_retry: false,
    });
    expect(report.timeline[2]).toEqual({
      turn: 1,
      type: 'tool_call',
      name: 'edit_file',
      arguments: null,
      succeeded: false,
      duration_s: 0.001,
      result_length: 0,
      error: 'invalid JSON in arguments',
    });
    expect(report.timeline[5]).toMatchObject({ is_retry: true, retry_reason: 'compact_messages' });
    expect(report.timeline[11]).toMatchObject({ clippy: { cached: true } });
    expect(report.settings).toEqual({
      temperature: 0.2,
      max_turns: 10,
      seed: null,
      clippy: { token_budget: 20000 },
    });
  });

  it('writes every counter, zero when nothing happened', () => {
    const b = newBuilder();
    b.startTurn();
    const report = b.finish({ outcome: 'success', answer: '', timestamp: END });
    expect(schemaErrors(validate, report)).toBe('');
    expect(report.stats).toEqual({
      turns: 1,
      llm_calls: 0,
      total_llm_time_s: 0,
      total_tool_time_s: 0,
      tool_calls_total: 0,
      tool_calls_succeeded: 0,
      tool_calls_failed: 0,
      tool_calls_by_name: {},
      compactions: 0,
      turn_drops: 0,
      guardrail_interventions: 0,
      truncated_responses: 0,
    });
  });

  it('maps outcomes to exit codes: exhausted 2, error 1 with error_message and a null answer', () => {
    const exhausted = busyRun().finish({ outcome: 'exhausted', answer: null, timestamp: END });
    expect(exhausted.result).toEqual({ outcome: 'exhausted', answer: null, exit_code: 2 });
    expect(schemaErrors(validate, exhausted)).toBe('');

    const failed = busyRun().finish({
      outcome: 'error',
      answer: null,
      errorMessage: 'context overflow after all recovery attempts',
      timestamp: END,
    });
    expect(failed.result).toEqual({
      outcome: 'error',
      answer: null,
      exit_code: 1,
      error_message: 'context overflow after all recovery attempts',
    });
    expect(schemaErrors(validate, failed)).toBe('');
  });

  it('keeps clippy extras under the clippy key and the timestamp defaults to now', () => {
    const b = new RunReportBuilder({
      task: 't',
      model: 'm',
      provider: 'p',
      clippy: { planner: 'offline' },
    });
    b.startTurn();
    const before = Date.now();
    const report = b.finish({ outcome: 'success', answer: 'a', clippy: { map_tokens: 1500 } });
    expect(report.clippy).toEqual({ planner: 'offline', map_tokens: 1500 });
    expect(report.settings).toEqual({});
    const stamped = Date.parse(report.timestamp);
    expect(stamped).toBeGreaterThanOrEqual(before - 1);
    expect(stamped).toBeLessThanOrEqual(Date.now());
    expect(schemaErrors(validate, report)).toBe('');
  });

  it('serializes as indented JSON with a final newline that parses back to the same report', () => {
    const report = busyRun().finish({ outcome: 'success', answer: 'x', timestamp: END });
    const text = serializeRunReport(report);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toBe('  "version": 1,');
    expect(JSON.parse(text)).toEqual(report);
  });

  it('does not let later mutation of inputs change recorded events', () => {
    const b = newBuilder();
    b.startTurn();
    const args = { path: 'a.txt' };
    b.recordToolCall({
      name: 'read_file',
      arguments: args,
      succeeded: true,
      durationS: 0,
      resultLength: 1,
    });
    args.path = 'changed';
    expect(b.timeline[0]).toMatchObject({ arguments: { path: 'a.txt' } });
  });

  describe('rejects bad input with an error naming the problem', () => {
    const cases: [string, (b: RunReportBuilder) => unknown, RegExp][] = [
      [
        'an event before startTurn',
        (b) => b.recordLlmCall({ durationS: 1, promptTokensEst: 1, finishReason: 'stop' }),
        /recordLlmCall\(\) called before startTurn\(\)/,
      ],
      [
        'a failed tool call without error',
        (b) => {
          b.startTurn();
          b.recordToolCall({
            name: 'x',
            arguments: {},
            succeeded: false,
            durationS: 0,
            resultLength: 0,
          });
        },
        /error must be present exactly when succeeded is false/,
      ],
      [
        'a successful tool call with an error',
        (b) => {
          b.startTurn();
          b.recordToolCall({
            name: 'x',
            arguments: {},
            succeeded: true,
            durationS: 0,
            resultLength: 0,
            error: 'boom',
          });
        },
        /error must be present exactly when succeeded is false/,
      ],
      [
        'a retry reason on a call that is not a retry',
        (b) => {
          b.startTurn();
          b.recordLlmCall({
            durationS: 1,
            promptTokensEst: 1,
            finishReason: 'stop',
            retryReason: 'compact_messages',
          });
        },
        /retry_reason is only allowed when is_retry is true/,
      ],
      [
        'a negative duration',
        (b) => {
          b.startTurn();
          b.recordLlmCall({ durationS: -1, promptTokensEst: 1, finishReason: 'stop' });
        },
        /duration_s/,
      ],
      [
        'an unknown guardrail level',
        (b) => {
          b.startTurn();
          b.recordGuardrail({ tool: 'x', level: 'warn' as 'stop' });
        },
        /level/,
      ],
      [
        'an error outcome without a message',
        (b) => b.finish({ outcome: 'error', answer: null }),
        /error_message/,
      ],
      [
        'an error message on success',
        (b) => b.finish({ outcome: 'success', answer: 'a', errorMessage: 'x' }),
        /error_message/,
      ],
      [
        'an answer on error',
        (b) => b.finish({ outcome: 'error', answer: 'partial', errorMessage: 'x' }),
        /answer/,
      ],
      ['a null answer on success', (b) => b.finish({ outcome: 'success', answer: null }), /answer/],
    ];
    for (const [name, act, message] of cases)
      it(name, () => {
        const b = newBuilder();
        expect(() => act(b)).toThrow(ReportValidationError);
        expect(() => act(newBuilder())).toThrow(message);
      });

    it('unknown settings keys outside settings.clippy', () => {
      expect(
        () =>
          new RunReportBuilder({
            task: 't',
            model: 'm',
            provider: 'p',
            settings: { budget: 2 } as never,
          }),
      ).toThrow(/budget/);
    });
  });
});

describe('RunReportSchema and docs/run-report.schema.json agree', () => {
  const base = (): RunReport =>
    structuredClone(busyRun().finish({ outcome: 'success', answer: 'Done.', timestamp: END }));

  it('accept a swival-style report (Python timestamp with microseconds and offset)', () => {
    const report = { ...base(), timestamp: '2026-02-25T14:30:00.123456+00:00' };
    expect(RunReportSchema.safeParse(report).success).toBe(true);
    expect(schemaErrors(validate, report)).toBe('');
  });

  type Mutation = [string, (r: Record<string, any>) => void]; // eslint-disable-line @typescript-eslint/no-explicit-any
  const mutations: Mutation[] = [
    ['version 2', (r) => (r.version = 2)],
    ['a timestamp that is not ISO 8601', (r) => (r.timestamp = 'yesterday')],
    ['an unknown top-level key', (r) => (r.extra = 1)],
    ['a missing stats counter', (r) => delete r.stats.turn_drops],
    ['an unknown stats key', (r) => (r.stats.skills_used = [])],
    ['exit code 3', (r) => (r.result.exit_code = 3)],
    ['exit code 2 on success', (r) => (r.result.exit_code = 2)],
    ['an unknown outcome', (r) => (r.result.outcome = 'done')],
    ['error_message on success', (r) => (r.result.error_message = 'x')],
    [
      'error without error_message',
      (r) => Object.assign(r.result, { outcome: 'error', exit_code: 1, answer: null }),
    ],
    [
      'an answer on error',
      (r) => Object.assign(r.result, { outcome: 'error', exit_code: 1, error_message: 'x' }),
    ],
    ['a null answer on success', (r) => (r.result.answer = null)],
    ['a failed tool call without error', (r) => delete r.timeline[2].error],
    ['a successful tool call with error', (r) => (r.timeline[1].error = 'x')],
    ['tool arguments that are a string', (r) => (r.timeline[1].arguments = '{}')],
    [
      'retry_reason when is_retry is false',
      (r) => (r.timeline[0].retry_reason = 'compact_messages'),
    ],
    ['an unknown retry_reason', (r) => (r.timeline[5].retry_reason = 'again')],
    ['an unknown compaction strategy', (r) => (r.timeline[4].strategy = 'summarize')],
    ['an unknown guardrail level', (r) => (r.timeline[8].level = 'warn')],
    ['an unknown event type', (r) => (r.timeline[6].type = 'recovered_response')],
    ['an event field outside clippy', (r) => (r.timeline[6].note = 'x')],
    ['turn 0', (r) => (r.timeline[0].turn = 0)],
    ['a fractional token estimate', (r) => (r.timeline[0].prompt_tokens_est = 1.5)],
    ['a missing timeline', (r) => delete r.timeline],
  ];
  for (const [name, mutate] of mutations)
    it(`both reject ${name}`, () => {
      const report = base();
      mutate(report);
      expect(schemaErrors(validate, report)).not.toBe('');
      expect(RunReportSchema.safeParse(report).success).toBe(false);
    });

  it('zod also rejects counters that disagree with the timeline (JSON Schema cannot say this)', () => {
    const report = base();
    report.stats.tool_calls_failed = 0;
    expect(schemaErrors(validate, report)).toBe('');
    const parsed = RunReportSchema.safeParse(report);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      'stats.tool_calls_failed is 0 but the timeline gives 2',
    );
  });
});
