import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CopilotChannel } from './channel.js';
import { eventsPath } from './events.js';
import { copilot } from './index.js';

// Copilot CLI 1.0.102's events file as it writes it (the lines clippy reads, laid out as they
// were observed against the fake model: a plain answer, a tool call approved, an interrupt), its
// wiring with --session-id, and its resume.

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'clippy-copilot-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const SESSION = '11111111-2222-4333-8444-555555555555';
const ANSWER = 'Here:\n\n```ts\nconst x = 1;\n```\n\n| a | b |\n|---|--:|\n| 1 | 2 |';
const at = (ms: number) => new Date(ms).toISOString();
const line = (type: string, data: Record<string, unknown>, ms: number) =>
  `${JSON.stringify({ type, data, id: `e${ms}`, timestamp: at(ms) })}\n`;

/** One interaction as Copilot writes it: the message, each model call, the usage. */
function interaction(prompt: string, ms: number, calls: { content: string; tools?: boolean }[]) {
  let out = line('user.message', { content: prompt, interactionId: `i${ms}` }, ms);
  calls.forEach((c, n) => {
    const t = ms + 10 * (n + 1);
    out += line('assistant.turn_start', { turnId: String(n) }, t);
    out += line('session.usage_record', { usage: { inputTokens: 12, outputTokens: 10 } }, t + 1);
    out += line(
      'assistant.message',
      {
        messageId: `m${t}`,
        model: 'fake-model',
        content: c.content,
        toolRequests: c.tools ? [{ toolCallId: 'c', name: 'bash' }] : [],
      },
      t + 2,
    );
    out += line('assistant.turn_end', { turnId: String(n) }, t + 3);
  });
  return out;
}

describe('Copilot CLI', () => {
  const file = () => eventsPath(join(home, '.copilot'), SESSION);
  const channel = () =>
    new CopilotChannel({ session: 's', env: { HOME: home }, cwd: home, agentSession: SESSION });
  const screen = (prompt: string, startedAt: number, interrupted = false) => ({
    prompt,
    startedAt,
    endedAt: startedAt + 1000,
    interrupted,
  });

  it('the last answer of the interaction the screen completed is read exactly, tokens summed over its model calls', async () => {
    mkdirSync(join(file(), '..'), { recursive: true });
    const t0 = Date.now();
    writeFileSync(
      file(),
      line('session.start', { sessionId: SESSION }, t0 - 5000) +
        interaction('An earlier one?', t0 - 4000, [{ content: 'Earlier.' }]) +
        interaction('Create it. APPROVE-ME', t0 + 10, [
          { content: '', tools: true },
          { content: ANSWER },
        ]),
    );
    const c = channel();
    expect(c.recordPath()).toBe(file());
    const turn = await c.readTurn(screen('Create it. APPROVE-ME', t0));
    expect(turn).toEqual({
      answer: ANSWER,
      prompt: 'Create it. APPROVE-ME',
      record: {
        agent: 'copilot',
        via: 'copilot-events',
        session_id: SESSION,
        turn_id: `m${t0 + 30}`,
        model: 'fake-model',
        input_tokens: 24,
        output_tokens: 20,
        completed_at: t0 + 33,
      },
    });
    // An older message asked again is not this turn.
    expect(await c.recorded(screen('An earlier one?', t0 + 5000))).toBeNull();
  });

  it('a turn still running when the screen completes it is read once Copilot writes its end; an interrupted one is the screen’s', async () => {
    mkdirSync(join(file(), '..'), { recursive: true });
    const t0 = Date.now();
    const full = interaction('Long one?', t0 + 10, [{ content: 'Done at last.' }]);
    const cut = full.split('\n').filter(Boolean);
    writeFileSync(file(), `${cut.slice(0, -1).join('\n')}\n`);
    const c = channel();
    // Its record holds no end yet: the follow finds nothing, the read waits for the end.
    expect(await c.recorded(screen('Long one?', t0))).toBeNull();
    const read = c.readTurn(screen('Long one?', t0));
    // Written once the read waits (the scenario, not a wait of the test's).
    setTimeout(() => appendFileSync(file(), `${cut.at(-1)}\n`), 100);
    expect((await read)?.answer).toBe('Done at last.');

    appendFileSync(
      file(),
      line('user.message', { content: 'Think. HANG-ME', interactionId: 'ih' }, t0 + 2000) +
        line('assistant.turn_start', { turnId: '0' }, t0 + 2001) +
        line('assistant.turn_end', { turnId: '0' }, t0 + 2002) +
        line('abort', { reason: 'user_initiated' }, t0 + 2003),
    );
    expect(await c.readTurn(screen('Think. HANG-ME', t0 + 1900, true))).toBeNull();
  });

  it('is started with --session-id (one it names is kept) and resumes with --session-id ID', () => {
    const hook = () => [];
    const wire = (args: string[]) =>
      copilot.wire({ session: 's', command: 'copilot', args, env: {}, cwd: home, hook });
    const fresh = wire(['--model', 'fake-model']);
    if ('skipped' in fresh) throw new Error(fresh.skipped);
    expect(fresh.args).toEqual(['--session-id', fresh.agentSession, '--model', 'fake-model']);
    expect(fresh.agentSession).toMatch(/^[0-9a-f-]{36}$/u);
    expect(wire(['--resume', SESSION])).toMatchObject({ agentSession: SESSION });
    expect(wire(['--session-id', SESSION])).toMatchObject({ agentSession: SESSION });
    expect(wire(['--resume', 'my-session'])).toEqual({
      skipped: 'its session (my-session) is not named by an ID',
    });
    expect(wire(['--resume', '--yolo'])).toEqual({
      skipped: 'it picks the session to resume itself',
    });
    expect(wire(['--continue'])).toEqual({ skipped: 'it resumes its latest session' });
    expect(wire(['-p', 'hi'])).toMatchObject({ skipped: expect.stringContaining('-p') });
    expect(wire(['login'])).toMatchObject({ skipped: expect.stringContaining('copilot login') });
    expect(
      copilot.resumeArgs(['--resume', SESSION, '--yolo', '-i', 'go', '--continue'], 'abc'),
    ).toEqual(['--session-id', 'abc', '--yolo']);
  });
});
