import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QwenChannel } from './channel.js';
import { QwenTranscript } from './transcript.js';
import { QWEN_DEFAULTS_VAR, qwenResumeArgs, wireQwen } from './wiring.js';

// Qwen Code 0.24.4's records as it wrote them against the fake model: its hooks' stdin JSON
// and its session transcript (the fields clippy reads, laid out as observed).

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-qwen-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const jsonl = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');
const ANSWER = '| a | b |\n|---|--:|\n| 1 | 2 |\n\n```ts\nconst x = 1;\n```';
const SESSION = '7650fba9-510e-4361-9d97-b0083c49f1b5';
const PROMPT_ID = `${SESSION}########0`;
/** How late Qwen Code writes the answer's record in the test of a lagging transcript (the scenario, not a wait). */
const LATE_MS = 200;

const base = (path: string, event: string) => ({
  session_id: SESSION,
  transcript_path: path,
  cwd: '/p',
  hook_event_name: event,
  timestamp: '2026-12-05T09:07:41.527Z',
  permission_mode: 'default',
});
const usage = (prompt: number, out: number, thoughts = 0) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: out,
  thoughtsTokenCount: thoughts,
  totalTokenCount: prompt + out + thoughts,
  cachedContentTokenCount: 0,
});
const user = (text: string, at = '2026-12-05T09:07:34.658Z') => ({
  uuid: 'u',
  sessionId: SESSION,
  timestamp: at,
  type: 'user',
  provenance: 'real_user',
  message: { role: 'user', parts: [{ text }] },
});
const assistant = (parts: unknown[], u?: ReturnType<typeof usage>) => ({
  uuid: 'a',
  sessionId: SESSION,
  timestamp: '2026-12-05T09:07:41.500Z',
  type: 'assistant',
  model: 'qwen3-coder-plus',
  message: { role: 'model', parts },
  ...(u ? { usageMetadata: u } : {}),
});

/** A turn with a tool call: the model calls it, the tool's result, then the answer. */
const TOOL_TURN = [
  user('Please create a file.'),
  { type: 'system', subtype: 'attribution_snapshot', systemPayload: {} },
  assistant(
    [{ text: 'I will think.', thought: true }, { functionCall: { name: 'run_shell_command' } }],
    usage(100, 20, 5),
  ),
  {
    type: 'tool_result',
    message: { role: 'user', parts: [{ functionResponse: { name: 'run_shell_command' } }] },
  },
  { type: 'system', subtype: 'ui_telemetry', systemPayload: { uiEvent: {} } },
  assistant([{ text: ANSWER }], usage(150, 30)),
];

describe('Qwen Code transcript', () => {
  it("the turn's answer is its last model text (thoughts and tool calls are not), tokens summed over its calls", async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(
      path,
      jsonl([user('earlier'), assistant([{ text: 'old' }], usage(1, 1)), ...TOOL_TURN]),
    );
    const t = await new QwenTranscript(path).latest();
    expect(t).toEqual({
      prompt: 'Please create a file.',
      promptAt: Date.parse('2026-12-05T09:07:34.658Z'),
      answer: ANSWER,
      model: 'qwen3-coder-plus',
      inputTokens: 250,
      outputTokens: 55,
      at: Date.parse('2026-12-05T09:07:41.500Z'),
    });
  });
});

describe('Qwen Code channel', () => {
  it('SessionStart names the session; Stop gives the transcript’s answer exactly, with tokens and model, for the prompt taken', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, jsonl(TOOL_TURN));
    const ch = new QwenChannel({ session: 's', env: {}, cwd: '/p' });
    expect(
      await ch.onEvent(
        'SessionStart',
        JSON.stringify({ ...base(path, 'SessionStart'), source: 'startup' }),
      ),
    ).toEqual({ kind: 'started' });
    expect(ch.agentSession).toBe(SESSION);
    const prompt = await ch.onEvent(
      'UserPromptSubmit',
      JSON.stringify({
        ...base(path, 'UserPromptSubmit'),
        prompt_id: PROMPT_ID,
        prompt: 'Please create a file.',
        submitted_prompt: 'Please create a file.',
      }),
    );
    expect(prompt).toEqual({ kind: 'prompt', prompt: 'Please create a file.' });
    const stop = await ch.onEvent(
      'Stop',
      JSON.stringify({
        ...base(path, 'Stop'),
        prompt_id: PROMPT_ID,
        stop_hook_active: false,
        last_assistant_message: ANSWER,
        input_tokens: 150,
      }),
    );
    expect(stop).toEqual({
      kind: 'turn',
      turn: {
        answer: ANSWER,
        prompt: 'Please create a file.',
        record: {
          agent: 'qwen',
          via: 'qwen-transcript',
          session_id: SESSION,
          turn_id: PROMPT_ID,
          model: 'qwen3-coder-plus',
          input_tokens: 250,
          output_tokens: 55,
          completed_at: Date.parse('2026-12-05T09:07:41.500Z'),
        },
      },
    });
  });

  it('a transcript that does not hold the answer yet is read again once it is written', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, jsonl(TOOL_TURN.slice(0, -1)));
    const ch = new QwenChannel({ session: 's', env: {}, cwd: '/p' });
    const late = setTimeout(() => appendFileSync(path, jsonl(TOOL_TURN.slice(-1))), LATE_MS);
    try {
      const stop = await ch.onEvent(
        'Stop',
        JSON.stringify({
          ...base(path, 'Stop'),
          prompt_id: PROMPT_ID,
          last_assistant_message: ANSWER,
        }),
      );
      expect(stop.kind === 'turn' && stop.turn.record.via).toBe('qwen-transcript');
      expect(stop.kind === 'turn' && stop.turn.record.output_tokens).toBe(55);
    } finally {
      clearTimeout(late);
    }
  });

  it("without a transcript (chat recording off: an empty path) the Stop hook's copy is the answer; no text is null", async () => {
    const ch = new QwenChannel({ session: 's', env: {}, cwd: '/p', agentSession: SESSION });
    const stop = await ch.onEvent(
      'Stop',
      JSON.stringify({ ...base('', 'Stop'), prompt_id: PROMPT_ID, last_assistant_message: ANSWER }),
    );
    expect(stop).toMatchObject({
      kind: 'turn',
      turn: { answer: ANSWER, record: { via: 'qwen-stop-hook', turn_id: PROMPT_ID } },
    });
    const none = await ch.onEvent(
      'Stop',
      JSON.stringify({ ...base('', 'Stop'), last_assistant_message: '[no response text]' }),
    );
    expect(none.kind === 'turn' && none.turn.answer).toBeNull();
    const failed = await ch.onEvent(
      'StopFailure',
      JSON.stringify({ ...base('', 'StopFailure'), error: 'rate_limit' }),
    );
    expect(failed).toMatchObject({ kind: 'turn', turn: { answer: null } });
    expect(
      await ch.onEvent('Notification', JSON.stringify(base('', 'Notification'))),
    ).toMatchObject({
      kind: 'ignored',
    });
  });

  it('expects a report for every prompt of the model, the first too (its hooks are on their way), not for an interrupt or its own commands', () => {
    const ch = new QwenChannel({ session: 's', env: {}, cwd: '/p' });
    const turn = { prompt: 'hi', startedAt: 0, endedAt: 1, interrupted: false };
    expect(ch.expectsReport(turn)).toBe(true);
    expect(ch.expectsReport({ ...turn, prompt: '/help' })).toBe(false);
    expect(ch.expectsReport({ ...turn, prompt: '!ls' })).toBe(false);
    expect(ch.expectsReport({ ...turn, interrupted: true })).toBe(false);
  });
});

describe('Qwen Code wiring', () => {
  const hook = (e: string) => ['/usr/bin/node', '/x/clippy-hook.js', '/run/s.sock', 's', 'qwen', e];

  it('points QWEN_CODE_SYSTEM_DEFAULTS_PATH at a file of its own: the defaults it would have read, with clippy’s hooks added', () => {
    const theirs = join(dir, 'system-defaults.json');
    const before = JSON.stringify({
      $version: 4,
      ui: { theme: 'x' },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] },
    });
    writeFileSync(theirs, before);
    const w = wireQwen({
      session: 's',
      command: 'qwen',
      args: ['--model', 'm'],
      env: { HOME: '/h', [QWEN_DEFAULTS_VAR]: theirs },
      cwd: dir,
      hook,
      dir: join(dir, 'agents'),
    });
    if ('skipped' in w) throw new Error(w.skipped);
    expect(w.args).toEqual(['--model', 'm']);
    const file = w.env[QWEN_DEFAULTS_VAR]!;
    expect(file.startsWith(join(dir, 'agents'))).toBe(true);
    expect(w.files).toEqual([file]);
    expect(w.env.HOME).toBe('/h');
    // Private: only the user reads it.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const settings = JSON.parse(readFileSync(file, 'utf8')) as {
      ui: unknown;
      hooks: Record<string, { hooks: { command: string; async?: boolean }[] }[]>;
    };
    expect(settings.ui).toEqual({ theme: 'x' });
    expect(settings.hooks.Stop!.map((h) => h.hooks[0]!.command)).toEqual([
      'mine',
      '/usr/bin/node /x/clippy-hook.js /run/s.sock s qwen Stop',
    ]);
    expect(settings.hooks.Stop![1]!.hooks[0]!.async).toBe(true);
    expect(Object.keys(settings.hooks)).toEqual([
      'Stop',
      'SessionStart',
      'UserPromptSubmit',
      'StopFailure',
    ]);
    // The user's own file is as it was.
    expect(readFileSync(theirs, 'utf8')).toBe(before);
  });

  it('is not wired where the run takes no hooks; resumes with --resume', () => {
    const ctx = {
      session: 's',
      command: 'qwen',
      env: {},
      cwd: dir,
      hook,
      dir: join(dir, 'agents'),
    };
    expect(wireQwen({ ...ctx, args: ['--bare'] })).toEqual({
      skipped: 'it runs without hooks (--bare, --safe-mode)',
    });
    expect(existsSync(join(dir, 'agents'))).toBe(false);
    expect(qwenResumeArgs(['--resume', 'OLD', '--continue', '--model', 'm'], 'NEW')).toEqual([
      '--resume',
      'NEW',
      '--model',
      'm',
    ]);
  });
});
