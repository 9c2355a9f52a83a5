import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { compileDocSchema, schemaErrors } from '../test/json-schema.js';
import { RunReportBuilder, serializeRunReport } from './run-report-builder.js';
import { sessionRunReport } from './session-run-report.js';
import { programMissing } from '@clippy/testkit/requirements';

const JQ = '/usr/bin/jq';

/** Runs a jq filter from the seed against a report file and parses what it prints. */
function jq(filter: string, file: string, raw = false): unknown {
  const out = execFileSync(JQ, raw ? ['-r', filter, file] : [filter, file], { encoding: 'utf8' });
  return raw ? out.trimEnd() : JSON.parse(out);
}

describe.skipIf(programMissing('jq') !== null)('the seed jq examples on a produced report', () => {
  let dir = '';
  let fileA = '';
  let fileB = '';
  let sessionFile = '';

  beforeAll(() => {
    dir = fs.mkdtempSync(os.tmpdir() + '/clippy-');
    const a = new RunReportBuilder({ task: 'Fix the failing tests', model: 'm1', provider: 'p' });
    a.startTurn();
    a.recordLlmCall({ durationS: 2.4514, promptTokensEst: 12400, finishReason: 'tool_calls' });
    a.recordToolCall({
      name: 'read_file',
      arguments: { path: 'tests/a.py' },
      succeeded: true,
      durationS: 0.004,
      resultLength: 42,
    });
    a.recordToolCall({
      name: 'run_command',
      arguments: { command: ['pytest'] },
      succeeded: false,
      durationS: 1.5,
      resultLength: 0,
      error: 'exit status 1',
    });
    a.startTurn();
    a.recordCompaction({ strategy: 'compact_messages', tokensBefore: 128000, tokensAfter: 64000 });
    a.recordLlmCall({
      durationS: 1.0,
      promptTokensEst: 64000,
      finishReason: 'stop',
      isRetry: true,
      retryReason: 'compact_messages',
    });
    a.recordToolCall({
      name: 'read_file',
      arguments: null,
      succeeded: false,
      durationS: 0.001,
      resultLength: 0,
      error: 'invalid JSON',
    });
    const reportA = a.finish({ outcome: 'success', answer: 'Fixed.' });
    expect(schemaErrors(compileDocSchema('run-report.schema.json'), reportA)).toBe('');
    fileA = path.join(dir, 'a.json');
    fs.writeFileSync(fileA, serializeRunReport(reportA));

    const b = new RunReportBuilder({ task: 'Fix the failing tests', model: 'm2', provider: 'p' });
    b.startTurn();
    b.recordLlmCall({ durationS: 3, promptTokensEst: 100, finishReason: 'stop' });
    fileB = path.join(dir, 'b.json');
    fs.writeFileSync(fileB, serializeRunReport(b.finish({ outcome: 'exhausted', answer: null })));

    const turn = (n: number, interrupted: boolean) => ({
      turn_id: `s7:${n}`,
      timestamp: 1_700_000_000_000 + n * 1000,
      duration_ms: 250 * n,
      byte_length: 10 * n,
      interrupted,
      truncated: false,
      prompt: `prompt ${n}`,
      text: `answer ${n}`,
    });
    const session = sessionRunReport({
      session: {
        id: 's7',
        name: 'aider',
        command: ['aider'],
        cwd: dir,
        preset: 'aider',
        createdAt: 1_700_000_000_000,
        state: 'running',
      },
      turns: [turn(1, false), turn(2, true), turn(3, false)],
    });
    sessionFile = path.join(dir, 'session.json');
    fs.writeFileSync(sessionFile, serializeRunReport(session));
  });

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('outcome and turn count', () => {
    expect(jq('{outcome: .result.outcome, turns: .stats.turns}', fileA)).toEqual({
      outcome: 'success',
      turns: 2,
    });
  });

  it('time in LLM calls vs tool execution', () => {
    expect(jq('{llm: .stats.total_llm_time_s, tools: .stats.total_tool_time_s}', fileA)).toEqual({
      llm: 3.451,
      tools: 1.505,
    });
  });

  it('which tools were used and how often', () => {
    expect(jq('.stats.tool_calls_by_name', fileA)).toEqual({
      read_file: { succeeded: 1, failed: 1 },
      run_command: { succeeded: 0, failed: 1 },
    });
  });

  it('all failed tool calls from the timeline', () => {
    const failed = jq(
      '[.timeline[] | select(.type == "tool_call" and .succeeded == false)]',
      fileA,
    ) as { name: string; error: string; turn: number }[];
    expect(failed.map((e) => [e.turn, e.name, e.error])).toEqual([
      [1, 'run_command', 'exit status 1'],
      [2, 'read_file', 'invalid JSON'],
    ]);
  });

  it('did context management kick in', () => {
    expect(jq('{compactions: .stats.compactions, turn_drops: .stats.turn_drops}', fileA)).toEqual({
      compactions: 1,
      turn_drops: 0,
    });
  });

  it('comparing two runs: outcomes, turns and tool calls', () => {
    expect([jq('.result.outcome', fileA, true), jq('.result.outcome', fileB, true)]).toEqual([
      'success',
      'exhausted',
    ]);
    const filter = '{turns: .stats.turns, tools: .stats.tool_calls_total}';
    expect([jq(filter, fileA), jq(filter, fileB)]).toEqual([
      { turns: 2, tools: 3 },
      { turns: 1, tools: 0 },
    ]);
  });

  it('agent sessions: the answer history and the interrupted turns', () => {
    expect(jq('[.clippy.answers[] | {turn_id, prompt, text}]', sessionFile)).toEqual([
      { turn_id: 's7:1', prompt: 'prompt 1', text: 'answer 1' },
      { turn_id: 's7:2', prompt: 'prompt 2', text: 'answer 2' },
      { turn_id: 's7:3', prompt: 'prompt 3', text: 'answer 3' },
    ]);
    expect(
      jq('[.timeline[] | select(.finish_reason == "interrupted") | .clippy.turn_id]', sessionFile),
    ).toEqual(['s7:2']);
    expect(jq('{outcome: .result.outcome, turns: .stats.turns}', sessionFile)).toEqual({
      outcome: 'success',
      turns: 3,
    });
  });
});
