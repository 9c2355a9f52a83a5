import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '@clippy/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_RECORD_WAIT_MS, ClaudeChannel } from './claude/channel.js';
import { claudeResumeArgs, wireClaude } from './claude/wiring.js';
import { CodexChannel } from './codex/channel.js';
import { GeminiChannel } from './gemini/channel.js';
import { HOOK_PROTOCOL_VERSION, HOOK_SECRET_VAR as ENTRY_SECRET_VAR } from './hook-entry.js';
import { HOOK_SECRET_VAR } from './hook-secret.js';
import { codex } from './codex/index.js';
import { gemini } from './gemini/index.js';

// The agents' records as the pinned versions write them (Claude Code 2.1.197's transcript and
// hooks, Codex 0.171.0's rollout, Gemini CLI 0.61.0's chat file: the fields clippy
// reads, laid out as they were observed against the fake model).

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-readers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const jsonl = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');
/** How late Claude Code writes its transcript after its Stop hook started (the scenario, not a wait). */
const CLAUDE_LATE_MS = 200;
/** How late Gemini writes a record in the test of a screen that completed early (the scenario, not a wait). */
const GEMINI_LATE_MS = 200;
const ANSWER = 'Here:\n\n```js\nconsole.log(1);\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';

describe('Claude Code', () => {
  /** Where Claude Code (HOME=dir) keeps session S's transcript. */
  const transcriptOf = (session = 'S') => {
    const folder = join(dir, '.claude', 'projects', '-work-p');
    mkdirSync(folder, { recursive: true });
    return join(folder, `${session}.jsonl`);
  };

  it('the Stop hook’s turn is read exactly from the transcript (the hook’s copy is trimmed), with tokens and model', async () => {
    const path = transcriptOf();
    writeFileSync(
      path,
      jsonl([
        { type: 'mode', mode: 'normal', sessionId: 'S' },
        { type: 'user', promptId: 'P1', message: { role: 'user', content: 'Show me' }, uuid: 'u1' },
        {
          type: 'assistant',
          isSidechain: true,
          message: { id: 'side', model: 'm', content: [{ type: 'text', text: 'a subagent' }] },
        },
        {
          type: 'assistant',
          message: {
            id: 'msg1',
            model: 'claude-x',
            content: [{ type: 'text', text: 'Let me look.' }],
            usage: { input_tokens: 5, cache_read_input_tokens: 2, output_tokens: 3 },
          },
          timestamp: '2026-01-01T00:00:00.000Z',
        },
        {
          type: 'user',
          promptId: 'P1',
          message: { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] },
        },
        {
          type: 'assistant',
          message: {
            id: 'msg2',
            model: 'claude-x',
            content: [{ type: 'text', text: ANSWER }],
            usage: { input_tokens: 12, output_tokens: 10 },
          },
          timestamp: '2026-01-01T00:00:01.000Z',
        },
      ]),
    );
    const ch = new ClaudeChannel({ session: 'c', env: { HOME: dir }, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    expect(ch.agentSession).toBe('S');
    await ch.onEvent('UserPromptSubmit', JSON.stringify({ prompt: 'Show me', prompt_id: 'P1' }));
    const u = await ch.onEvent(
      'Stop',
      JSON.stringify({
        prompt_id: 'P1',
        transcript_path: path,
        last_assistant_message: ANSWER.trim(),
      }),
    );
    expect(u.kind).toBe('turn');
    if (u.kind !== 'turn') return;
    expect(u.turn.answer).toBe(ANSWER);
    expect(u.turn.prompt).toBe('Show me');
    expect(u.turn.record).toMatchObject({
      agent: 'claude',
      via: 'claude-transcript',
      session_id: 'S',
      turn_id: 'P1',
      model: 'claude-x',
      input_tokens: 19,
      output_tokens: 13,
      completed_at: Date.parse('2026-01-01T00:00:01.000Z'),
    });
  });

  it('a Stop hook that comes before the transcript holds the answer waits for it: model and tokens counted', async () => {
    // Issue 44: Claude Code starts its Stop hooks before it writes the turn's answer to the
    // transcript (seen on 2.1.197: the prompt alone, or no file yet on the first turn).
    const path = join(dir, 'later', 't.jsonl');
    const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    await ch.onEvent('UserPromptSubmit', JSON.stringify({ prompt: 'Show me', prompt_id: 'P1' }));
    const stop = ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', transcript_path: path, last_assistant_message: 'Here.' }),
    );
    // The transcript comes after the hook started: its folder, the prompt, then the answer.
    await new Promise((r) => setTimeout(r, CLAUDE_LATE_MS));
    mkdirSync(join(dir, 'later'));
    writeFileSync(
      path,
      jsonl([{ type: 'user', promptId: 'P1', message: { role: 'user', content: 'Show me' } }]),
    );
    await new Promise((r) => setTimeout(r, CLAUDE_LATE_MS));
    appendFileSync(
      path,
      jsonl([
        {
          type: 'assistant',
          message: {
            id: 'm1',
            model: 'claude-x',
            content: [{ type: 'text', text: 'Here.\n' }],
            usage: { input_tokens: 12, output_tokens: 10 },
          },
        },
      ]),
    );
    const u = await stop;
    expect(u.kind === 'turn' && u.turn.answer).toBe('Here.\n');
    expect(u.kind === 'turn' && u.turn.record).toMatchObject({
      via: 'claude-transcript',
      model: 'claude-x',
      input_tokens: 12,
      output_tokens: 10,
    });
  });

  it('a turn’s end written before its answer does not end the wait while the Stop report says there is one', async () => {
    // Seen once in a full run (the first answer of a session): the transcript held the prompt and
    // the turn's end 12 ms into the wait, its answer not yet, and the text was read off the screen.
    const path = transcriptOf();
    const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    writeFileSync(
      path,
      jsonl([
        { type: 'user', promptId: 'P1', message: { role: 'user', content: 'Show me' } },
        { type: 'system', subtype: 'turn_duration' },
      ]),
    );
    const stop = ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', transcript_path: path, last_assistant_message: 'Here.' }),
    );
    await new Promise((r) => setTimeout(r, CLAUDE_LATE_MS));
    appendFileSync(
      path,
      jsonl([
        {
          type: 'assistant',
          message: { id: 'm1', model: 'claude-x', content: [{ type: 'text', text: 'Here.\n' }] },
        },
      ]),
    );
    const u = await stop;
    expect(u.kind === 'turn' && u.turn.answer).toBe('Here.\n');
    expect(u.kind === 'turn' && u.turn.record?.via).toBe('claude-transcript');
  });

  it(
    'a Stop whose transcript held no answer by the end of its wait leaves the turn to the transcript: read once written',
    async () => {
      const path = transcriptOf();
      const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
      await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
      writeFileSync(
        path,
        jsonl([{ type: 'user', promptId: 'P1', message: { role: 'user', content: 'Show me' } }]),
      );
      const u = await ch.onEvent(
        'Stop',
        JSON.stringify({ prompt_id: 'P1', transcript_path: path, last_assistant_message: 'Here.' }),
      );
      expect(u.kind === 'turn' && u.turn.answer).toBeNull();
      expect(u.kind === 'turn' && u.turn.note).toContain('holds no answer for its turn P1');
      expect(u.kind === 'turn' && u.turn.answerToCome).toBe(true);
      appendFileSync(
        path,
        jsonl([
          {
            type: 'assistant',
            message: { id: 'm1', content: [{ type: 'text', text: 'Here.\n' }] },
          },
          { type: 'system', subtype: 'turn_duration' },
        ]),
      );
      const late = await ch.recorded({
        prompt: 'Show me',
        startedAt: 0,
        endedAt: 1,
        interrupted: false,
      });
      expect(late?.answer).toBe('Here.\n');
    },
    CLAUDE_RECORD_WAIT_MS + 5_000,
  );

  it('a turn whose end the transcript has written is read when the screen completes it; its Stop hook then adds nothing', async () => {
    const path = transcriptOf();
    const at = Date.parse('2026-01-01T00:00:00.000Z');
    const prompt = {
      type: 'user',
      promptId: 'P1',
      message: { role: 'user', content: 'Show me' },
      timestamp: '2026-01-01T00:00:00.000Z',
    };
    const answer = {
      type: 'assistant',
      message: { id: 'm1', model: 'claude-x', content: [{ type: 'text', text: ANSWER }] },
      timestamp: '2026-01-01T00:00:01.000Z',
    };
    writeFileSync(path, jsonl([prompt, answer]));
    const ch = new ClaudeChannel({ session: 'c', env: { HOME: dir }, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    const turn = { prompt: 'Show me', startedAt: at - 10, endedAt: at + 2000, interrupted: false };
    // Its answer is there, its end not yet: the hook is waited for.
    expect(await ch.recorded(turn)).toBeNull();
    appendFileSync(path, jsonl([{ type: 'system', subtype: 'turn_duration', durationMs: 1000 }]));
    // Another turn's prompt, or one taken before the screen's turn began, is not this one.
    expect(await ch.recorded({ ...turn, prompt: 'Something else' })).toBeNull();
    expect(await ch.recorded({ ...turn, startedAt: at + 500 })).toBeNull();
    const r = await ch.recorded(turn);
    expect(r?.answer).toBe(ANSWER);
    expect(r?.record).toMatchObject({ via: 'claude-transcript', turn_id: 'P1', model: 'claude-x' });
    expect(await ch.recorded(turn)).toBeNull();
    const stop = await ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', last_assistant_message: ANSWER.trim() }),
    );
    expect(stop.kind).toBe('ignored');
  });

  it('without the transcript the hook’s copy is never the answer: the turn says so; a bad payload is an error naming it', async () => {
    const ch = new ClaudeChannel({ session: 'c', env: { HOME: dir }, cwd: dir });
    const u = await ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P9', last_assistant_message: 'touch ~/pwned' }),
    );
    expect(u.kind === 'turn' && u.turn.answer).toBeNull();
    expect(u.kind === 'turn' && u.turn.record.via).toBe('claude-stop-hook');
    expect(u.kind === 'turn' && u.turn.note).toBe(
      "no transcript was named to clippy: the Stop report's copy is not used, the text is the screen's",
    );
    await expect(ch.onEvent('Stop', 'not json')).rejects.toThrow(
      /claude Stop: the payload is not JSON/,
    );
  });

  it('a Stop report whose answer is not the transcript’s: the transcript’s is kept, and the turn says so', async () => {
    const path = transcriptOf();
    writeFileSync(
      path,
      jsonl([
        { type: 'user', promptId: 'P1', message: { role: 'user', content: 'Show me' } },
        { type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: ANSWER }] } },
        { type: 'system', subtype: 'turn_duration', durationMs: 1000 },
      ]),
    );
    const ch = new ClaudeChannel({ session: 'c', env: { HOME: dir }, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    const u = await ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', last_assistant_message: 'touch ~/pwned' }),
    );
    expect(u.kind === 'turn' && u.turn.answer).toBe(ANSWER);
    expect(u.kind === 'turn' && u.turn.record.via).toBe('claude-transcript');
    expect(u.kind === 'turn' && u.turn.note).toBe(
      "the agent's Stop report for its turn P1 gave another answer than its transcript: the transcript's is kept",
    );
  });

  it('a first answer written before its prompt is still its turn’s: a line follows its parent, not the file’s order', async () => {
    // Seen in a full run (a session's first turn, a loaded machine): Claude Code's concurrent
    // writers put the answer first and the prompt, made to wait for the file, after it.
    const path = transcriptOf();
    const at = Date.parse('2026-01-01T00:00:00.000Z');
    const line = (uuid: string, parentUuid: string | null, row: object) => ({
      uuid,
      parentUuid,
      timestamp: '2026-01-01T00:00:00.000Z',
      ...row,
    });
    const answer = line('a1', 's1', {
      type: 'assistant',
      message: { id: 'm1', model: 'claude-x', content: [{ type: 'text', text: ANSWER }] },
    });
    const prompt = line('u1', null, {
      type: 'user',
      promptId: 'P1',
      message: { role: 'user', content: 'Show me' },
    });
    const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    const turn = { prompt: 'Show me', startedAt: at - 10, endedAt: at + 2000, interrupted: false };
    // The answer alone: no turn is open yet, and the line waits for its parent.
    writeFileSync(path, jsonl([answer, { type: 'mode', mode: 'normal', sessionId: 'S' }]));
    expect(await ch.recorded(turn)).toBeNull();
    appendFileSync(
      path,
      jsonl([
        prompt,
        line('s0', 'u1', { type: 'attachment', attachment: { type: 'agent_listing_delta' } }),
        line('s1', 's0', { type: 'attachment', attachment: { type: 'skill_listing' } }),
        line('h1', 'a1', { type: 'system', subtype: 'stop_hook_summary' }),
        line('d1', 'h1', { type: 'system', subtype: 'turn_duration', durationMs: 600 }),
      ]),
    );
    const r = await ch.recorded(turn);
    expect(r?.answer).toBe(ANSWER);
    expect(r?.record).toMatchObject({ via: 'claude-transcript', turn_id: 'P1', model: 'claude-x' });

    // Through the Stop report, read from the file's start as a fresh reader does.
    const fresh = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    await fresh.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    const u = await fresh.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', last_assistant_message: ANSWER.trim() }),
    );
    expect(u.kind === 'turn' && u.turn.answer).toBe(ANSWER);
    expect(u.kind === 'turn' && u.turn.record.via).toBe('claude-transcript');
  });

  it('lines waiting for the same parent count in the order they were written', async () => {
    const path = transcriptOf();
    const block = (uuid: string, text: string) => ({
      uuid,
      parentUuid: 'u1',
      type: 'assistant',
      message: { id: 'm1', content: [{ type: 'text', text }] },
    });
    writeFileSync(
      path,
      jsonl([
        block('a1', 'Here '),
        block('a2', 'it '),
        block('a3', 'is.'),
        { uuid: 'u1', parentUuid: null, type: 'user', promptId: 'P1', message: { content: 'q' } },
        { uuid: 'd1', parentUuid: 'a3', type: 'system', subtype: 'turn_duration' },
      ]),
    );
    const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    const u = await ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', last_assistant_message: 'Here it is.' }),
    );
    expect(u.kind === 'turn' && u.turn.answer).toBe('Here it is.');
  });

  it('a line of an earlier turn written after the next prompt stays that turn’s answer', async () => {
    const path = transcriptOf();
    const line = (uuid: string, parentUuid: string | null, row: object) => ({
      uuid,
      parentUuid,
      ...row,
    });
    const say = (id: string, text: string) => ({
      type: 'assistant',
      message: { id, content: [{ type: 'text', text }] },
    });
    writeFileSync(
      path,
      jsonl([
        line('u1', null, { type: 'user', promptId: 'P1', message: { content: 'one' } }),
        line('a1', 'u1', say('m1', 'first')),
        line('u2', 'a1', { type: 'user', promptId: 'P2', message: { content: 'two' } }),
        // Turn P1's last message, written late: its parent is P1's.
        line('a1b', 'a1', say('m1b', 'first, finished')),
        line('d1', 'a1b', { type: 'system', subtype: 'turn_duration' }),
      ]),
    );
    const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S', transcript_path: path }));
    const second = ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P2', last_assistant_message: 'second' }),
    );
    await new Promise((r) => setTimeout(r, CLAUDE_LATE_MS));
    appendFileSync(
      path,
      jsonl([
        line('a2', 'u2', say('m2', 'second')),
        line('d2', 'a2', { type: 'system', subtype: 'turn_duration' }),
      ]),
    );
    const u = await second;
    expect(u.kind === 'turn' && u.turn.answer).toBe('second');
    expect(u.kind === 'turn' && u.turn.note).toBeUndefined();
    const first = await ch.onEvent(
      'Stop',
      JSON.stringify({ prompt_id: 'P1', last_assistant_message: 'first, finished' }),
    );
    expect(first.kind === 'turn' && first.turn.answer).toBe('first, finished');
  });

  it('its own commands and interrupts are not waited for; a prompt is, once the channel works', async () => {
    const ch = new ClaudeChannel({ session: 'c', env: {}, cwd: dir });
    const turn = { prompt: 'hello', startedAt: 0, endedAt: 1, interrupted: false };
    expect(ch.expectsReport(turn)).toBe(false);
    await ch.onEvent('SessionStart', JSON.stringify({ session_id: 'S' }));
    expect(ch.expectsReport(turn)).toBe(true);
    expect(ch.expectsReport({ ...turn, prompt: '/help' })).toBe(false);
    expect(ch.expectsReport({ ...turn, interrupted: true })).toBe(false);
  });

  it('wires its hooks with --settings, keeping a --settings given, and resumes with --resume', () => {
    const w = wireClaude({
      session: 's',
      command: 'claude',
      args: [
        '--settings',
        '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]},"x":1}',
        '--model',
        'm',
      ],
      env: {},
      cwd: dir,
      hook: (e) => ['/usr/bin/node', '/x/clippy-hook.js', '/run/s.sock', 's', 'claude', e],
    });
    if ('skipped' in w) throw new Error(w.skipped);
    expect(w.args.slice(2)).toEqual(['--model', 'm']);
    const settings = JSON.parse(w.args[1]!) as {
      x: number;
      hooks: Record<string, { hooks: { command: string; async?: boolean }[] }[]>;
    };
    expect(settings.x).toBe(1);
    expect(settings.hooks.Stop!.map((h) => h.hooks[0]!.command)).toEqual([
      'mine',
      '/usr/bin/node /x/clippy-hook.js /run/s.sock s claude Stop',
    ]);
    // clippy's hooks only report: Claude Code runs a turn's in the background (the user's as it
    // was), and waits for SessionStart's, before the session's first answer.
    expect(settings.hooks.Stop!.map((h) => h.hooks[0]!.async)).toEqual([undefined, true]);
    expect(settings.hooks.SessionStart!.map((h) => h.hooks[0]!.async)).toEqual([false]);
    expect(settings.hooks.UserPromptSubmit!.map((h) => h.hooks[0]!.async)).toEqual([true]);
    expect(Object.keys(settings.hooks)).toEqual([
      'Stop',
      'SessionStart',
      'UserPromptSubmit',
      'StopFailure',
    ]);
    expect(claudeResumeArgs(['--resume', 'OLD', '--model', 'm'], 'NEW')).toEqual([
      '--resume',
      'NEW',
      '--model',
      'm',
    ]);
  });
});

describe('Codex', () => {
  /** A 0.171.0 rollout of one turn (the lines clippy reads, as observed), asked at `at`. */
  function codexTurn(thread: string, turnId: string, prompt: string, at: number) {
    const ts = (ms: number) => new Date(at + ms).toISOString();
    return [
      { timestamp: ts(0), type: 'event_msg', payload: { type: 'task_started', turn_id: turnId } },
      { timestamp: ts(1), type: 'turn_context', payload: { turn_id: turnId, model: 'fake-model' } },
      {
        timestamp: ts(2),
        type: 'event_msg',
        payload: {
          type: 'item_completed',
          thread_id: thread,
          turn_id: turnId,
          item: { type: 'UserMessage', id: 'u', content: [{ type: 'text', text: prompt }] },
        },
      },
      {
        timestamp: ts(3),
        type: 'token_usage_record',
        payload: { turn_id: turnId, turn_token_usage: { input_tokens: 12, output_tokens: 10 } },
      },
      {
        timestamp: ts(4),
        type: 'event_msg',
        payload: { type: 'task_complete', turn_id: turnId, last_agent_message: ANSWER },
      },
    ];
  }

  /** Today's rollout folder of a Codex home under the test's folder. */
  function dayFolder(): { home: string; day: string; cwd: string } {
    const home = join(dir, 'codex');
    const day = join(home, 'sessions', '2026', '11', '27');
    mkdirSync(day, { recursive: true });
    return { home, day, cwd: join(dir, 'project') };
  }

  const meta = (id: string, where: string, t0: number) => ({
    type: 'session_meta',
    payload: { id, cwd: where, timestamp: new Date(t0).toISOString() },
  });

  it('the rollout gives the turn the screen completed: found by its folder and prompt, then followed, with tokens and model', async () => {
    const { home, day, cwd } = dayFolder();
    const ch = new CodexChannel({ session: 'c', env: { CODEX_HOME: home }, cwd });
    const t0 = Date.now();
    // Another Codex in another folder asked the same meanwhile: not this session's.
    writeFileSync(
      join(day, 'rollout-2026-11-27T00-00-00-OTHER.jsonl'),
      jsonl([
        meta('OTHER', join(dir, 'elsewhere'), t0),
        ...codexTurn('OTHER', 'X1', 'Show me', t0),
      ]),
    );
    const rollout = join(day, 'rollout-2026-11-27T00-00-01-T1.jsonl');
    const screen = { prompt: 'Show me', startedAt: t0, endedAt: t0 + 100, interrupted: false };
    expect(await ch.recorded(screen)).toBeNull(); // no rollout yet (Codex writes it at the first message)
    writeFileSync(rollout, jsonl([meta('T1', cwd, t0), ...codexTurn('T1', 'U1', 'Show me', t0)]));
    const r = await ch.recorded(screen);
    expect(r?.answer).toBe(ANSWER);
    expect(r?.prompt).toBe('Show me');
    expect(r?.record).toMatchObject({
      agent: 'codex',
      via: 'codex-rollout',
      session_id: 'T1',
      turn_id: 'U1',
      model: 'fake-model',
      input_tokens: 12,
      output_tokens: 10,
      completed_at: t0 + 4,
    });
    expect(ch.agentSession).toBe('T1');
    expect(ch.recordPath()).toBe(rollout);
    // Given once by the followed record; the screen's read of it still finds it.
    expect(await ch.recorded(screen)).toBeNull();
    expect((await ch.readTurn(screen))?.record.turn_id).toBe('U1');
    // The next turn: open (no end yet), then ended; an older turn's end is not the screen's.
    const next = { ...screen, prompt: 'And then?', startedAt: t0 + 1000 };
    appendFileSync(rollout, jsonl(codexTurn('T1', 'U2', 'And then?', t0 + 1000).slice(0, 3)));
    expect(await ch.recorded(next)).toBeNull();
    expect(await ch.recorded({ ...next, startedAt: t0 + 5000 })).toBeNull();
    appendFileSync(rollout, jsonl(codexTurn('T1', 'U2', 'And then?', t0 + 1000).slice(3)));
    expect(await ch.recorded({ ...next, startedAt: t0 + 5000 })).toBeNull(); // asked after it
    expect((await ch.recorded(next))?.record.turn_id).toBe('U2');
    ch.dispose();
  });

  it('the screen’s read waits for an end Codex writes late', async () => {
    const { home, day, cwd } = dayFolder();
    const ch = new CodexChannel({ session: 'c', env: { CODEX_HOME: home }, cwd });
    const t0 = Date.now();
    const rollout = join(day, 'rollout-2026-11-27T00-00-02-T3.jsonl');
    const lines = codexTurn('T3', 'U1', 'Show me', t0);
    writeFileSync(rollout, jsonl([meta('T3', cwd, t0), ...lines.slice(0, 3)]));
    const screen = { prompt: 'Show me', startedAt: t0, endedAt: t0 + 100, interrupted: false };
    const read = ch.readTurn(screen);
    // Written once the read waits (the scenario, not a wait of the test's).
    setTimeout(() => appendFileSync(rollout, jsonl(lines.slice(3))), 200);
    expect((await read)?.answer).toBe(ANSWER);
    // Its own commands end no model turn: not waited for.
    expect(await ch.readTurn({ ...screen, prompt: '/status', startedAt: Date.now() })).toBeNull();
    ch.dispose();
  });

  it('two rollouts of the same folder whose latest turn is the screen’s: neither is taken, unless the other is another session’s', async () => {
    const { home, day, cwd } = dayFolder();
    const t0 = Date.now();
    const ch = new CodexChannel({ session: 'c', env: { CODEX_HOME: home }, cwd });
    for (const id of ['A', 'B'])
      writeFileSync(
        join(day, `rollout-2026-11-27T00-00-00-${id}.jsonl`),
        jsonl([meta(id, cwd, t0), ...codexTurn(id, `${id}1`, 'Show me', t0)]),
      );
    const screen = { prompt: 'Show me', startedAt: t0, endedAt: t0 + 100, interrupted: false };
    expect(await ch.recorded(screen)).toBeNull();
    expect(ch.agentSession).toBeUndefined();
    // Session A was resumed in another clippy session: its rollout is that one's.
    const resumed = new CodexChannel({
      session: 'a',
      env: { CODEX_HOME: home },
      cwd,
      agentSession: 'A',
    });
    expect((await resumed.recorded(screen))?.record.session_id).toBe('A');
    expect((await ch.recorded(screen))?.record.session_id).toBe('B');
    resumed.dispose();
    ch.dispose();
  });

  it('leaves the command line as it was (nothing of Codex’s runs for clippy) and resumes with `codex resume ID`', () => {
    const w = codex.wire({
      session: 's',
      command: 'codex',
      args: ['--no-daemon'],
      env: { X: '1' },
      cwd: dir,
      hook: (e) => ['n', 'h', e],
    });
    expect(w).toEqual({ args: ['--no-daemon'], env: { X: '1' } });
    expect(codex.resumeArgs(['--no-daemon'], 'T1')).toEqual(['resume', 'T1', '--no-daemon']);
    expect(codex.resumeArgs(['resume', 'T0', '--no-daemon'], 'T1')).toEqual([
      'resume',
      'T1',
      '--no-daemon',
    ]);
  });
});

describe('Gemini CLI', () => {
  it('the chat file’s last answer after the prompt recorded during the turn is the answer', async () => {
    const chats = join(dir, '.gemini', 'tmp', 'project', 'chats');
    mkdirSync(chats, { recursive: true });
    const id = '11111111-2222-3333-4444-555555555555';
    writeFileSync(
      join(chats, 'session-2026-01-01T00-00-11111111.jsonl'),
      jsonl([
        { sessionId: id, projectHash: 'h', startTime: '2026-01-01T00:00:00.000Z', kind: 'main' },
        {
          $set: {
            messages: [{ id: 'ctx', type: 'user', content: [{ text: '<session_context>\nx' }] }],
          },
        },
        {
          id: 'm1',
          timestamp: '2026-01-01T00:00:10.000Z',
          type: 'user',
          content: [{ text: 'Show me' }],
        },
        {
          id: 'g1',
          timestamp: '2026-01-01T00:00:11.000Z',
          type: 'gemini',
          content: ANSWER.trimEnd(),
          tokens: { input: 12, output: 10 },
          model: 'gemini-x',
        },
        { $set: { lastUpdated: '2026-01-01T00:00:11.000Z' } },
      ]),
    );
    const ch = new GeminiChannel({ session: 'c', env: { HOME: dir }, cwd: dir, agentSession: id });
    const started = Date.parse('2026-01-01T00:00:09.900Z');
    const t = await ch.readTurn({
      prompt: 'Show me',
      startedAt: started,
      endedAt: started + 2_000,
      interrupted: false,
    });
    expect(t?.answer).toBe(ANSWER.trimEnd());
    expect(t?.record).toMatchObject({
      agent: 'gemini',
      session_id: id,
      turn_id: 'g1',
      model: 'gemini-x',
      input_tokens: 12,
      output_tokens: 10,
    });
    // A turn that began after the chat's last prompt (a /command Gemini does not record) has none.
    expect(
      await ch.readTurn({
        prompt: '/help',
        startedAt: started + 5_000,
        endedAt: started + 6_000,
        interrupted: false,
      }),
    ).toBeNull();
  });

  it('a resumed session’s turn is read from the file Gemini writes it to, not the newest one', async () => {
    // Issue 44: `gemini --resume ID` writes a new chat file holding only its context, and the
    // conversation goes on in the file it resumed (0.61.0).
    const chats = join(dir, '.gemini', 'tmp', 'project', 'chats');
    mkdirSync(chats, { recursive: true });
    const id = '11111111-2222-3333-4444-555555555555';
    const head = { sessionId: id, projectHash: 'h', kind: 'main' };
    const context = {
      $set: {
        messages: [{ id: 'ctx', type: 'user', content: [{ text: '<session_context>\nx' }] }],
      },
    };
    const asked = (n: number, at: string, answerAt: string) => [
      { id: `u${n}`, timestamp: at, type: 'user', content: [{ text: `Question ${n}` }] },
      {
        id: `g${n}`,
        timestamp: answerAt,
        type: 'gemini',
        content: `Answer ${n}.`,
        tokens: { input: 3, output: n },
        model: 'gemini-x',
      },
    ];
    const resumed = join(chats, 'session-2026-01-01T00-00-11111111.jsonl');
    writeFileSync(
      resumed,
      jsonl([head, context, ...asked(1, '2026-01-01T00:00:10.000Z', '2026-01-01T00:00:11.000Z')]),
    );
    // The resume's own file: newer by name, context only.
    writeFileSync(join(chats, 'session-2026-01-01T00-05-11111111.jsonl'), jsonl([head, context]));
    // Another session's file with the same short ID is not this session's.
    writeFileSync(
      join(chats, 'session-2026-01-01T00-06-11111111.jsonl'),
      jsonl([{ ...head, sessionId: '11111111-0000-0000-0000-000000000000' }]),
    );
    appendFileSync(
      resumed,
      jsonl(asked(2, '2026-01-01T00:05:10.000Z', '2026-01-01T00:05:11.000Z')),
    );
    const ch = new GeminiChannel({ session: 'c', env: { HOME: dir }, cwd: dir, agentSession: id });
    const started = Date.parse('2026-01-01T00:05:09.900Z');
    const t = await ch.readTurn({
      prompt: 'Question 2',
      startedAt: started,
      endedAt: started + 2_000,
      interrupted: false,
    });
    expect(t?.answer).toBe('Answer 2.');
    expect(t?.record).toMatchObject({ turn_id: 'g2', output_tokens: 2, model: 'gemini-x' });
  });

  it('a turn the screen completed before Gemini recorded it is read once Gemini writes it', async () => {
    const chats = join(dir, '.gemini', 'tmp', 'project', 'chats');
    mkdirSync(chats, { recursive: true });
    const id = '11111111-2222-3333-4444-555555555555';
    const path = join(chats, 'session-2026-01-01T00-00-11111111.jsonl');
    const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + s * 1000);
    const asked = (n: number, s: number) => [
      { id: `u${n}`, timestamp: at(s).toISOString(), type: 'user', content: [{ text: 'Again?' }] },
      {
        id: `g${n}`,
        timestamp: at(s + 1).toISOString(),
        type: 'gemini',
        content: `Answer ${n}.`,
        model: 'gemini-x',
      },
    ];
    writeFileSync(path, jsonl([{ sessionId: id, projectHash: 'h' }, ...asked(1, 10)]));
    const ch = new GeminiChannel({ session: 'c', env: { HOME: dir }, cwd: dir, agentSession: id });
    // The same question again: the screen completed its turn (at 20 s) before Gemini wrote the
    // prompt, which it does a moment later, with its answer.
    const read = ch.readTurn({
      prompt: 'Again?',
      startedAt: at(20).getTime(),
      endedAt: at(20.3).getTime(),
      interrupted: false,
    });
    const [prompt, answer] = asked(2, 20.5);
    setTimeout(() => appendFileSync(path, jsonl([prompt])), GEMINI_LATE_MS);
    setTimeout(() => appendFileSync(path, jsonl([answer])), 2 * GEMINI_LATE_MS);
    const t = await read;
    expect(t?.answer).toBe('Answer 2.');
    expect(t?.record.turn_id).toBe('g2');
  });

  it('is started with --session-id (a given one is kept) and resumes with --resume ID', () => {
    const w = gemini.wire({
      session: 's',
      command: 'gemini',
      args: [],
      env: {},
      cwd: dir,
      hook: () => [],
    });
    expect('args' in w && w.args[0]).toBe('--session-id');
    expect('agentSession' in w && w.agentSession).toMatch(/^[0-9a-f-]{36}$/);
    const kept = gemini.wire({
      session: 's',
      command: 'gemini',
      args: ['--resume', 'abc-1'],
      env: {},
      cwd: dir,
      hook: () => [],
    });
    expect('agentSession' in kept && kept.agentSession).toBe('abc-1');
    expect(
      'skipped' in
        gemini.wire({
          session: 's',
          command: 'gemini',
          args: ['--resume', 'latest'],
          env: {},
          cwd: dir,
          hook: () => [],
        }),
    ).toBe(true);
    expect(gemini.resumeArgs(['--session-id', 'abc-1', '-m', 'x'], 'abc-1')).toEqual([
      '--resume',
      'abc-1',
      '-m',
      'x',
    ]);
  });
});

it('the hook entry speaks the protocol version of the daemon', () => {
  expect(HOOK_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
});

it('the hook entry reads the secret from the variable the daemon sets', () => {
  expect(ENTRY_SECRET_VAR).toBe(HOOK_SECRET_VAR);
});
