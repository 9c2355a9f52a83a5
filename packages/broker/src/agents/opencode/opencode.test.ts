import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '@clippy/testkit/until';
import { OpenCodeChannel } from './channel.js';
import { HOOKS_VAR, OPENCODE_PLUGIN, opencode } from './index.js';
import { ClippyChannel } from './plugin.js';

// OpenCode 1.18.33's records as clippy's plugin reads them (the session messages API's
// `{info, parts}` and its bus events, laid out as they were observed against the fake model),
// its wiring through OPENCODE_CONFIG_CONTENT, and the channel that reads the plugin's reports.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-opencode-'));
});
afterEach(() => {
  delete process.env[HOOKS_VAR];
  delete (globalThis as Record<symbol, unknown>)[Symbol.for('clippy.opencode.hooks')];
  rmSync(dir, { recursive: true, force: true });
});

const ANSWER = 'Here:\n\n```ts\nconst x = 1;\n```\n\n| a | b |\n|---|--:|\n| 1 | 2 |';

const user = (id: string, text: string, session = 'ses_1') => ({
  info: { id, sessionID: session, role: 'user', time: { created: 1 } },
  parts: [
    { id: `${id}-p`, type: 'text', text },
    { id: `${id}-s`, type: 'text', text: 'a file read for it', synthetic: true },
  ],
});
const assistant = (id: string, parent: string, text: string | null, tokens: [number, number]) => ({
  info: {
    id,
    sessionID: 'ses_1',
    role: 'assistant',
    parentID: parent,
    modelID: 'fake-model',
    providerID: 'fake',
    cost: 0,
    tokens: { input: tokens[0], output: tokens[1], reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: 2, completed: 3 },
  },
  parts: [
    { type: 'step-start' },
    ...(text === null ? [] : [{ type: 'text', text }]),
    { type: 'step-finish', reason: 'stop' },
  ],
});

describe('the plugin, inside OpenCode', () => {
  /** Hook commands that append each event's name and stdin to a file, one JSON per line. */
  function hooks(): string {
    const log = join(dir, 'events.jsonl');
    const script = `const fs=require('fs');fs.appendFileSync(${JSON.stringify(log)},JSON.stringify({event:process.argv[1],payload:JSON.parse(fs.readFileSync(0,'utf8'))})+'\\n')`;
    process.env[HOOKS_VAR] = JSON.stringify({
      session: [process.execPath, '-e', script, 'session'],
      turn: [process.execPath, '-e', script, 'turn'],
    });
    return log;
  }
  const read = (log: string): { event: string; payload: Record<string, unknown> }[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { event: string; payload: Record<string, unknown> })
      : [];

  it('reports a new conversation, then each turn prompted in this run once: its last answer exactly, tokens summed', async () => {
    const log = hooks();
    let messages: unknown[] = [];
    const asked: string[] = [];
    const plugin = await ClippyChannel({
      client: {
        session: {
          messages: ({ path }) => {
            asked.push(path.id);
            return Promise.resolve({ data: messages });
          },
        },
      },
    });
    // Out of OpenCode's environment: what it runs (a nested OpenCode) reports nothing here.
    expect(process.env[HOOKS_VAR]).toBeUndefined();
    const event = (type: string, properties: Record<string, unknown>) =>
      plugin.event!({ event: { type, properties } });
    await event('session.created', { sessionID: 'ses_1', info: { id: 'ses_1' } });
    // A subagent's session (the task tool): never reported, nor its turns.
    await event('session.created', {
      sessionID: 'ses_2',
      info: { id: 'ses_2', parentID: 'ses_1' },
    });
    // An older turn of a resumed session, never prompted in this run: not reported.
    messages = [user('m0', 'Before?'), assistant('a0', 'm0', 'Old.', [1, 1])];
    await event('session.idle', { sessionID: 'ses_1' });
    await plugin['chat.message']!({ sessionID: 'ses_1' }, { message: { id: 'm1' } });
    messages = [
      ...messages,
      user('m1', 'Show me?'),
      assistant('a1', 'm1', null, [12, 10]),
      assistant('a2', 'm1', ANSWER, [30, 5]),
    ];
    await event('session.idle', { sessionID: 'ses_1' });
    // Idle once more on the same answer, and a subagent's idle: nothing more.
    await event('session.idle', { sessionID: 'ses_1' });
    await event('session.idle', { sessionID: 'ses_2' });
    await until(() => read(log).length >= 2, 'the reports', 10_000);
    // The hook processes are done: nothing else arrives. Fixed: a report that does not come
    // cannot be awaited; the two above came within this, so a third would have too.
    await new Promise((r) => setTimeout(r, 300));
    expect(read(log)).toEqual([
      { event: 'session', payload: { session_id: 'ses_1' } },
      {
        event: 'turn',
        payload: {
          session_id: 'ses_1',
          message_id: 'a2',
          prompt_id: 'm1',
          prompt: 'Show me?',
          answer: ANSWER,
          model: 'fake/fake-model',
          input_tokens: 42,
          output_tokens: 15,
          cost: 0,
          completed_at: 3,
          aborted: false,
        },
      },
    ]);
    expect(asked).not.toContain('ses_2');
  });

  it('without the hook commands (a nested OpenCode) it does nothing', async () => {
    const plugin = await ClippyChannel({
      client: { session: { messages: () => Promise.reject(new Error('not called')) } },
    });
    expect(plugin).toEqual({});
  });
});

describe('the channel', () => {
  const turn = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      session_id: 'ses_1',
      message_id: 'a2',
      prompt: 'Show me?',
      answer: ANSWER,
      model: 'fake/fake-model',
      input_tokens: 42,
      output_tokens: 15,
      cost: 0,
      completed_at: 3,
      aborted: false,
      ...over,
    });

  it('a session starts; a turn is the answer exactly with its record, once; an aborted one is the screen’s', async () => {
    const c = new OpenCodeChannel({ session: 's', env: {}, cwd: dir });
    expect(c.agentSession).toBeUndefined();
    expect(await c.onEvent('session', '{"session_id":"ses_1"}')).toEqual({ kind: 'started' });
    expect(c.agentSession).toBe('ses_1');
    expect(await c.onEvent('turn', turn())).toEqual({
      kind: 'turn',
      turn: {
        answer: ANSWER,
        prompt: 'Show me?',
        record: {
          agent: 'opencode',
          via: 'opencode-plugin',
          session_id: 'ses_1',
          turn_id: 'a2',
          model: 'fake/fake-model',
          input_tokens: 42,
          output_tokens: 15,
          completed_at: 3,
        },
      },
    });
    expect((await c.onEvent('turn', turn())).kind).toBe('ignored');
    expect((await c.onEvent('turn', turn({ message_id: 'a3', aborted: true }))).kind).toBe(
      'ignored',
    );
    // A price OpenCode knows is the turn's cost.
    const priced = await c.onEvent('turn', turn({ message_id: 'a4', cost: 0.0125 }));
    expect(priced.kind === 'turn' && priced.turn.record.cost_usd).toBe(0.0125);
    await expect(c.onEvent('turn', '{"message_id":"a5"}')).rejects.toThrow(/no session_id/u);
    await expect(c.onEvent('turn', 'not json')).rejects.toThrow(/not JSON/u);
  });

  it('its own commands, shell lines and interrupts are not waited for', () => {
    const c = new OpenCodeChannel({ session: 's', env: {}, cwd: dir });
    const screen = (prompt: string, interrupted = false) => ({
      prompt,
      startedAt: 1,
      endedAt: 2,
      interrupted,
    });
    expect(c.expectsReport(screen('What now?'))).toBe(true);
    expect(c.expectsReport(screen('/models'))).toBe(false);
    expect(c.expectsReport(screen('!ls'))).toBe(false);
    expect(c.expectsReport(screen('What now?', true))).toBe(false);
  });
});

describe('the wiring', () => {
  const hook = (event: string) => ['node', 'clippy-hook.js', 'sock', 'S', 'opencode', event];
  const wire = (args: string[], env: Record<string, string> = {}) =>
    opencode.wire({ session: 'S', command: 'opencode', args, env, cwd: dir, hook });

  it('adds the plugin to OPENCODE_CONFIG_CONTENT (after the user’s own) and the hook commands beside it', () => {
    const w = wire(['--model', 'fake/fake-model'], {
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ plugin: ['theirs'], model: 'x/y' }),
    });
    if ('skipped' in w) throw new Error(w.skipped);
    expect(w.args).toEqual(['--model', 'fake/fake-model']);
    expect(JSON.parse(w.env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      plugin: ['theirs', `file://${OPENCODE_PLUGIN}`],
      model: 'x/y',
      experimental: { disable_paste_summary: true },
    });
    // A paste summary the user asked for stays.
    const theirs = wire([], {
      OPENCODE_CONFIG_CONTENT: '{"experimental":{"disable_paste_summary":false,"x":1}}',
    });
    expect('skipped' in theirs ? null : JSON.parse(theirs.env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      plugin: [`file://${OPENCODE_PLUGIN}`],
      experimental: { disable_paste_summary: false, x: 1 },
    });
    expect(JSON.parse(w.env[HOOKS_VAR]!)).toEqual({ session: hook('session'), turn: hook('turn') });
    expect(w.agentSession).toBeUndefined();
    // The plugin's file is this package's (its source when run from it).
    expect(OPENCODE_PLUGIN).toBe(fileURLToPath(new URL('./plugin.ts', import.meta.url)));
    const resumed = wire(['--session', 'ses_9']);
    expect('skipped' in resumed ? null : resumed.agentSession).toBe('ses_9');
  });

  it('leaves alone a run without plugins, another command than its TUI, and a config it cannot read', () => {
    expect(wire(['--pure'])).toEqual({ skipped: 'it runs without plugins (--pure)' });
    expect(wire([], { OPENCODE_PURE: '1' })).toEqual({
      skipped: 'it runs without plugins (--pure)',
    });
    expect(wire(['run', 'hello'])).toEqual({
      skipped: '`opencode run` is not its terminal interface',
    });
    expect(wire([], { OPENCODE_CONFIG_CONTENT: '{ // jsonc' })).toMatchObject({
      skipped: expect.stringContaining('OPENCODE_CONFIG_CONTENT could not be read'),
    });
    expect(wire([], { OPENCODE_CONFIG_CONTENT: '[1]' })).toEqual({
      skipped: 'its OPENCODE_CONFIG_CONTENT is not a JSON object',
    });
  });

  it('resumes with --session ID, in place of the options that chose a conversation', () => {
    expect(opencode.resumeArgs(['--model', 'a/b'], 'ses_9')).toEqual([
      '--session',
      'ses_9',
      '--model',
      'a/b',
    ]);
    expect(
      opencode.resumeArgs(['-s', 'ses_1', '--continue', '--fork', '--prompt', 'hi', '.'], 'ses_9'),
    ).toEqual(['--session', 'ses_9', '.']);
  });
});
