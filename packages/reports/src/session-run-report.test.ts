import { describe, it, expect } from 'vitest';
import { compileDocSchema, schemaErrors } from '../test/json-schema.js';
import { ReportValidationError } from './errors.js';
import { sessionRunReport, type SessionRunReportInput } from './session-run-report.js';

const validate = compileDocSchema('run-report.schema.json');

function threeTurnSession(): SessionRunReportInput {
  return {
    session: {
      id: 's1',
      name: 'claude',
      command: ['claude', '--model', 'opus 4', "it's"],
      cwd: '/home/u/project',
      preset: 'claude-code',
      createdAt: '2026-01-05T10:00:00.000Z',
      state: 'running',
    },
    turns: [
      {
        turn_id: 's1:1',
        timestamp: Date.parse('2026-01-05T10:00:05.000Z'),
        duration_ms: 4321.6,
        byte_length: 900,
        interrupted: false,
        truncated: false,
        prompt: 'hello world',
        text: 'Hi! How can I help?',
      },
      {
        turn_id: 's1:2',
        timestamp: '2026-01-05T10:01:00.000Z',
        duration_ms: 1500,
        byte_length: 12000,
        interrupted: true,
        truncated: false,
        prompt: 'refactor everything',
        text: 'Refactoring src/',
      },
      {
        turn_id: 's1:3',
        timestamp: new Date('2026-01-05T10:02:30.000Z'),
        duration_ms: 20000,
        byte_length: 300000,
        interrupted: false,
        truncated: true,
        prompt: 'just src/api.ts please',
        text: 'Done: 3 functions now return Result.',
      },
    ],
  };
}

describe('sessionRunReport', () => {
  it('maps a 3-turn session (one interrupted) to a valid run report', () => {
    const report = sessionRunReport(threeTurnSession());
    expect(schemaErrors(validate, report)).toBe('');
    expect(report.task).toBe(`claude --model 'opus 4' 'it'\\''s'`);
    expect([report.model, report.provider]).toEqual(['unknown', 'unknown']);
    // Still running: the report is stamped with the last turn's time.
    expect(report.timestamp).toBe('2026-01-05T10:02:30.000Z');
    expect(report.result).toEqual({
      outcome: 'success',
      answer: 'Done: 3 functions now return Result.',
      exit_code: 0,
    });
    expect(report.settings).toEqual({ clippy: { preset: 'claude-code' } });
    expect(report.stats).toMatchObject({
      turns: 3,
      llm_calls: 3,
      total_llm_time_s: 25.822,
      total_tool_time_s: 0,
      tool_calls_total: 0,
      tool_calls_by_name: {},
    });
    expect(report.timeline).toEqual([
      {
        turn: 1,
        type: 'llm_call',
        duration_s: 4.322,
        prompt_tokens_est: 3, // 11 characters / 4, rounded up
        finish_reason: 'stop',
        is_retry: false,
        clippy: { turn_id: 's1:1', byte_length: 900, interrupted: false, truncated: false },
      },
      {
        turn: 2,
        type: 'llm_call',
        duration_s: 1.5,
        prompt_tokens_est: 5, // 19 characters
        finish_reason: 'interrupted',
        is_retry: false,
        clippy: { turn_id: 's1:2', byte_length: 12000, interrupted: true, truncated: false },
      },
      {
        turn: 3,
        type: 'llm_call',
        duration_s: 20,
        prompt_tokens_est: 6, // 22 characters
        finish_reason: 'stop',
        is_retry: false,
        clippy: { turn_id: 's1:3', byte_length: 300000, interrupted: false, truncated: true },
      },
      { turn: 3, type: 'truncated_response', clippy: { turn_id: 's1:3' } },
    ]);
    expect(report.stats.truncated_responses).toBe(1);
    expect(report.clippy).toEqual({
      source: 'agent_session',
      session: {
        id: 's1',
        name: 'claude',
        command: ['claude', '--model', 'opus 4', "it's"],
        cwd: '/home/u/project',
        preset: 'claude-code',
        state: 'running',
        created_at: '2026-01-05T10:00:00.000Z',
        exited_at: null,
        exit_code: null,
      },
      answers: [
        { turn_id: 's1:1', prompt: 'hello world', text: 'Hi! How can I help?' },
        { turn_id: 's1:2', prompt: 'refactor everything', text: 'Refactoring src/' },
        {
          turn_id: 's1:3',
          prompt: 'just src/api.ts please',
          text: 'Done: 3 functions now return Result.',
        },
      ],
    });
  });

  it('takes model and provider from the preset and stamps an exited session with its exit time', () => {
    const input = threeTurnSession();
    Object.assign(input.session, {
      model: 'claude-opus-4',
      provider: 'anthropic',
      state: 'exited',
      exitCode: 0,
      exitedAt: '2026-01-05T10:05:00.000Z',
    });
    const report = sessionRunReport(input);
    expect([report.model, report.provider]).toEqual(['claude-opus-4', 'anthropic']);
    expect(report.timestamp).toBe('2026-01-05T10:05:00.000Z');
    expect(report.result.outcome).toBe('success');
    expect(schemaErrors(validate, report)).toBe('');
  });

  it('reports a session that exited non-zero as an error naming the exit code', () => {
    const input = threeTurnSession();
    Object.assign(input.session, {
      state: 'exited',
      exitCode: 137,
      exitedAt: new Date('2026-01-05T10:03:00.000Z'),
    });
    const report = sessionRunReport(input, { timestamp: new Date('2026-01-05T11:00:00.000Z') });
    expect(schemaErrors(validate, report)).toBe('');
    expect(report.result).toEqual({
      outcome: 'error',
      answer: null,
      exit_code: 1,
      error_message: 'session exited with code 137',
    });
    expect(report.timestamp).toBe('2026-01-05T11:00:00.000Z');
    expect(report.stats.turns).toBe(3);
    // The answers are not lost: they stay in the history.
    expect((report.clippy?.answers as unknown[]).length).toBe(3);
    expect(report.clippy?.session).toMatchObject({
      exit_code: 137,
      exited_at: '2026-01-05T10:03:00.000Z',
    });
  });

  it('reports a session without any turn as an error', () => {
    const input = threeTurnSession();
    input.turns = [];
    const report = sessionRunReport(input);
    expect(schemaErrors(validate, report)).toBe('');
    expect(report.result).toEqual({
      outcome: 'error',
      answer: null,
      exit_code: 1,
      error_message: 'session has no completed turn',
    });
    expect(report.timestamp).toBe('2026-01-05T10:00:00.000Z');
    expect(report.stats.turns).toBe(0);
    expect(report.timeline).toEqual([]);
  });

  it('rejects malformed sessions with an error naming the field', () => {
    const badTime = threeTurnSession();
    badTime.session.createdAt = 'not a date';
    expect(() => sessionRunReport(badTime)).toThrow(ReportValidationError);
    expect(() => sessionRunReport(badTime)).toThrow(/createdAt/);

    const badTurn = threeTurnSession();
    (badTurn.turns[1] as { duration_ms: number }).duration_ms = -5;
    expect(() => sessionRunReport(badTurn)).toThrow(/turns\[1\]\.duration_ms|duration_ms/);
  });
});
