import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { answerText, spawnAgent } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { repoRoot } from '@clippy/testkit/paths';

// `clippy report` on a real fake-agent session with three turns, under the real daemon.

let d: TestDaemon;
let c: ClippyClient;
const questions = ['what is a turn', 'and a relay', 'thanks'];

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  await spawnAgent(d, c, 'aid', 'aider', 'aider');
  for (const [i, q] of questions.entries()) {
    const sent = await c.request('send', { session: 'aid', text: q, enter: true });
    expect(sent.submitted).toBe(true);
    await c.request(
      'wait_turn',
      { session: 'aid', after: `aid:${i}`, timeout_ms: 20_000 },
      { timeoutMs: 0 },
    );
  }
});
afterAll(async () => {
  await c?.close();
  await d?.stop();
});

describe('clippy report', () => {
  it('writes a run report of the session that validates against the schema', async () => {
    const file = join(d.env.root, 'aid.json');
    const run = await runClippy(['report', 'aid', '--report', file], d.env.env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const report = JSON.parse(readFileSync(file, 'utf8'));
    const schema = JSON.parse(
      readFileSync(join(repoRoot, 'docs', 'run-report.schema.json'), 'utf8'),
    );
    const ajv = new Ajv.default({ allErrors: true });
    addFormats.default(ajv);
    const valid = ajv.validate(schema, report);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect(report.stats.turns).toBe(3);
    expect(report.stats.llm_calls).toBe(3);
    expect(report.timeline.map((e: { type: string }) => e.type)).toEqual([
      'llm_call',
      'llm_call',
      'llm_call',
    ]);
    expect(report.result).toMatchObject({
      outcome: 'success',
      exit_code: 0,
      answer: answerText('thanks'),
    });
    expect(report.clippy.answers.map((a: { prompt: string }) => a.prompt)).toEqual(questions);
    expect(report.task).toContain('aider');
    if (existsSync('/usr/bin/jq')) {
      const out = execFileSync('jq', [
        '-c',
        '{outcome: .result.outcome, turns: .stats.turns}',
        file,
      ]);
      expect(out.toString().trim()).toBe('{"outcome":"success","turns":3}');
    }
  });

  it('prints the Execution Report with one action per turn and puts it in the relay buffer', async () => {
    const run = await runClippy(['report', 'aid', '--markdown'], d.env.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^# Execution Report\n/);
    expect(run.stdout).toContain('- **Status:** SUCCESS');
    for (const [i] of questions.entries())
      expect(run.stdout).toContain(`### Action ${i + 1}: turn `);
    expect(run.stdout).toContain(answerText('and a relay'));
    // No display here: the clipboard is a warning, the relay buffer still gets the report.
    const out = join(d.env.root, 'buffer.md');
    const delivered = await runClippy(['deliver', '--sink', 'file', '--path', out], d.env.env);
    expect(delivered.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(run.stdout);
  });

  it('names an unknown session', async () => {
    const run = await runClippy(['report', 'nope'], d.env.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'nope'");
  });
});
