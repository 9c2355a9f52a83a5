import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCommand, type AgentName } from '@clippy/testkit/agents/index';
import { answerText, choices, tuiAnswerText } from '@clippy/testkit/agents/harness';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import { RawClient, type Message } from '../test-support/raw-client.js';

// What a client showing an agent's answer as it grows needs of the daemon: `turn_progress`
// pushes (only when asked for), the question and choices of a blocked session, and `interrupt`.
// Against an in-process broker with the fake agents (a line agent and a TUI) in real PTYs.

let tb: TestBroker | null = null;
let dir: string | null = null;
afterEach(async () => {
  await tb?.stop();
  tb = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

const PRESET: Record<string, string> = { aider: 'aider', claude: 'claude' };

/** Starts a fake agent as session `name`; resolves with its log file once it is ready. */
async function agent(
  c: RawClient,
  name: string,
  kind: AgentName,
  args: string[] = [],
): Promise<string> {
  dir ??= mkdtempSync(join(tmpdir(), 'clippy-progress-'));
  const log = join(dir, `${name}.log`);
  const { command, args: full } = agentCommand(kind, ['--log', log, ...args]);
  const from = c.messages.length;
  await c.ok('spawn', {
    command,
    args: full,
    name,
    preset: PRESET[kind],
    env: childEnv(),
    cwd: dir,
  });
  await c.waitFor((m) => m.type === 'session_ready' && m.name === name, 15_000, from);
  return log;
}

/**
 * A small agent drawn as OpenCode 1.18 draws (../shared/corpus: its footer, "esc interrupt" while
 * busy, "esc again to interrupt" after one Esc), working until two Escs read apart, its spinner
 * redrawn every 50 ms. Loaded: while busy it reads its terminal once a second, as a starved
 * OpenCode does, so two keys sent closer than that come in one read (ESC ESC), which it
 * ignores, as OpenCode does.
 */
const ESC_TWICE_AGENT = String.raw`
const out = (lines) => process.stdout.write('\x1b[H\x1b[2J' + lines.join('\r\n'));
const footer = (left) => ('  ' + left).padEnd(60) + 'ctrl+p commands';
let mode = 'idle', typed = '', frame = 0, spin = null, answer = [];
const box = () => ['  ┃', '  ┃  ' + typed, '  ┃  Build · Fake Model', '  ╹' + '▀'.repeat(40)];
function draw() {
  const left = mode === 'idle' ? '' : '⬝■'[frame++ % 2] + '⬝⬝⬝  ' + (mode === 'armed' ? 'esc again to interrupt' : 'esc interrupt');
  out([...answer, '', ...box(), footer(left)]);
}
function take(s) {
  if (mode === 'idle') {
    if (s.includes('\r')) {
      typed += s.slice(0, s.indexOf('\r'));
      answer = ['  ┃  ' + typed, '', '     Thinking it over'];
      typed = '';
      mode = 'busy';
      spin = setInterval(draw, 50);
    } else typed += s;
  } else if (s === '\x1b') {
    if (mode === 'armed') {
      clearInterval(spin);
      mode = 'idle';
      answer = [...answer, '', '     Interrupted', '', '     ▣  Build · Fake Model · 1.0s'];
    } else mode = 'armed';
  }
  draw();
}
process.stdin.setRawMode(true);
// The terminal read without Node's stream (which reads each key as it comes): what is queued
// is read at once, every 20 ms while idle and every second while busy.
const fs = require('fs');
const tty = fs.openSync('/dev/tty', fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
const buf = Buffer.alloc(4096);
function poll() {
  try {
    const n = fs.readSync(tty, buf, 0, buf.length, null);
    if (n > 0) take(buf.subarray(0, n).toString('utf8'));
  } catch (err) {
    if (err.code !== 'EAGAIN') throw err;
  }
  setTimeout(poll, mode === 'idle' ? 20 : 1000);
}
poll();
draw();
`;

const progress = (c: RawClient, name: string): string[] =>
  c.messages
    .filter((m) => m.type === 'turn_progress' && m.name === name)
    .map((m) => m.text as string);

async function turnOf(c: RawClient, name: string, after: number): Promise<Message> {
  const r = await c.ok('wait_turn', {
    session: name,
    after: `${name}:${after}`,
    timeout_ms: 20_000,
  });
  return r.turn as Message;
}

describe('turn_progress', () => {
  for (const kind of ['aider', 'claude'] as const) {
    it(`${kind}: the text grows while the turn does, each a start of the completed turn's text`, async () => {
      tb = await startTestBroker();
      const c = await tb.client();
      await c.ok('subscribe', { events: ['session_ready', 'turn_progress'] });
      // Three pieces with pauses: the text is looked at while it grows.
      await agent(c, 'a', kind, ['--pieces', '3', '--pause', '400']);
      await c.ok('send', { session: 'a', text: 'grow', enter: true });
      const turn = await turnOf(c, 'a', 0);
      const texts = progress(c, 'a');
      expect(texts.length).toBeGreaterThanOrEqual(2);
      for (const t of texts)
        expect((turn.text as string).startsWith(t.replace(/\n.*$/u, ''))).toBe(true);
      // They grow: the pieces appear in order.
      expect(texts.some((t) => t.includes('Piece 1 of 3') && !t.includes('Piece 3 of 3'))).toBe(
        true,
      );
      const answer = kind === 'claude' ? tuiAnswerText('grow') : answerText('grow');
      expect(turn.text).toContain(answer);
    });
  }

  it('comes only to connections that name it, and only about their sessions', async () => {
    tb = await startTestBroker();
    const all = await tb.client();
    const named = await tb.client();
    const other = await tb.client();
    await all.ok('subscribe', {});
    await named.ok('subscribe', { events: ['turn_progress', 'turn_completed'], sessions: ['a'] });
    await other.ok('subscribe', { events: ['turn_progress'], sessions: ['nobody'] });
    await agent(all, 'a', 'aider', ['--pieces', '2', '--pause', '400']);
    await all.ok('send', { session: 'a', text: 'hello', enter: true });
    await named.waitFor((m) => m.type === 'turn_completed', 20_000);
    expect(progress(named, 'a').length).toBeGreaterThan(0);
    expect(all.messages.some((m) => m.type === 'turn_progress')).toBe(false);
    expect(other.messages.some((m) => m.type === 'turn_progress')).toBe(false);
  });
});

describe('a blocked session: its question and choices', () => {
  it("the TUI's numbered dialog in state_changed and list_sessions; the chosen keys reach it", async () => {
    tb = await startTestBroker();
    const c = await tb.client();
    await c.ok('subscribe', { events: ['session_ready', 'state_changed'] });
    const log = await agent(c, 't', 'claude', ['--ask']);
    await c.ok('send', { session: 't', text: 'test it', enter: true });
    const blocked = await c.waitFor(
      (m) => m.type === 'state_changed' && m.name === 't' && m.state === 'blocked',
      15_000,
    );
    const menu = blocked.menu as {
      question: string;
      options: { label: string; keys: string[]; selected: boolean }[];
    };
    expect(menu).toMatchObject({
      question: 'Do you want to proceed?',
      detail: ['Bash command', 'make test', 'Run the tests'],
      style: 'numbered',
      cancel: ['Esc'],
    });
    expect(menu.options.map((o) => o.keys)).toEqual([
      ['Enter'],
      ['Down', 'Enter'],
      ['Down', 'Down', 'Enter'],
    ]);
    const listed = (
      (await c.ok('list_sessions')).sessions as { name: string; menu?: unknown }[]
    ).find((s) => s.name === 't');
    expect(listed?.menu).toEqual(menu);
    await c.ok('send', { session: 't', keys: menu.options[1]!.keys });
    const turn = await turnOf(c, 't', 0);
    expect(choices(log)).toEqual([menu.options[1]!.label]);
    // Asked once: the dialog drawn again with its cursor moved, before it closed, is no new question.
    const states = c.messages.filter((m) => m.type === 'state_changed' && m.name === 't');
    expect(states.filter((m) => m.state === 'blocked')).toHaveLength(1);
    expect(turn.text).toContain(`Permission: ${menu.options[1]!.label}`);
    expect(turn.text).toContain(tuiAnswerText('test it'));
    const after = (
      (await c.ok('list_sessions')).sessions as { name: string; menu?: unknown }[]
    ).find((s) => s.name === 't');
    expect(after?.menu).toBeUndefined();
  });

  it("the line agent's typed-letter question; its detail is the command", async () => {
    tb = await startTestBroker();
    const c = await tb.client();
    await c.ok('subscribe', { events: ['session_ready', 'state_changed'] });
    const log = await agent(c, 'l', 'aider', ['--ask']);
    await c.ok('send', { session: 'l', text: 'test it', enter: true });
    const blocked = await c.waitFor(
      (m) => m.type === 'state_changed' && m.name === 'l' && m.state === 'blocked',
      15_000,
    );
    expect(blocked.menu).toEqual({
      question: 'Run shell command?',
      detail: ['I need to run a command.', '$ make test'],
      style: 'letters',
      cancel: null,
      options: [
        { label: 'Yes', keys: ['y', 'Enter'], selected: true },
        { label: 'No', keys: ['n', 'Enter'], selected: false },
        { label: "Don't ask again", keys: ['d', 'Enter'], selected: false },
      ],
    });
    await c.ok('send', { session: 'l', keys: ['n', 'Enter'] });
    const turn = await turnOf(c, 'l', 0);
    expect(choices(log)).toEqual(['No']);
    expect(turn.text).toContain('Permission: No');
  });
});

describe('interrupt', () => {
  for (const kind of ['aider', 'claude'] as const) {
    it(`${kind}: presses ${kind === 'claude' ? 'Esc' : 'Ctrl-C'}; the turn ends interrupted`, async () => {
      tb = await startTestBroker();
      const c = await tb.client();
      await c.ok('subscribe', { events: ['session_ready', 'state_changed'] });
      await agent(c, 'i', kind, ['--pieces', '5', '--pause', '800']);
      await c.ok('send', { session: 'i', text: 'long job', enter: true });
      await c.waitFor((m) => m.type === 'state_changed' && m.name === 'i' && m.state === 'busy');
      const r = await c.ok('interrupt', { session: 'i' });
      expect(r.keys).toEqual(kind === 'claude' ? ['Esc'] : ['C-c']);
      const turn = await turnOf(c, 'i', 0);
      expect(turn.interrupted).toBe(true);
      expect(turn.text).not.toContain('Piece 5 of 5');
    });
  }

  it('OpenCode-style Esc, Esc to a loaded agent: the second Esc waits for "esc again to interrupt"', async () => {
    tb = await startTestBroker();
    const c = await tb.client();
    await c.ok('subscribe', { events: ['session_ready', 'state_changed'] });
    dir ??= mkdtempSync(join(tmpdir(), 'clippy-progress-'));
    const script = join(dir, 'esc-twice.cjs');
    writeFileSync(script, ESC_TWICE_AGENT);
    await c.ok('spawn', {
      command: process.execPath,
      args: [script],
      name: 'o',
      preset: 'opencode',
      env: childEnv(),
      cwd: dir,
    });
    await c.waitFor((m) => m.type === 'session_ready' && m.name === 'o', 15_000);
    await c.ok('send', { session: 'o', text: 'long job', enter: true });
    await c.waitFor((m) => m.type === 'state_changed' && m.name === 'o' && m.state === 'busy');
    expect((await c.ok('interrupt', { session: 'o' })).keys).toEqual(['Esc', 'Esc']);
    // Read as one ESC ESC, the keys would not stop it: its turn would never end.
    const turn = await turnOf(c, 'o', 0);
    expect(turn.interrupted).toBe(true);
    expect(turn.text).toContain('Interrupted');
  });

  it('answers a missing session and a wrapper session with clear errors', async () => {
    tb = await startTestBroker();
    const c = await tb.client();
    expect(await c.request('interrupt', { session: 'nope' })).toMatchObject({
      status: 'error',
      error: 'session_not_found',
    });
    const w = await RawClient.open(tb.socket, 'wrapper');
    try {
      await w.ok('register', { session: 'w', pid: process.pid, pattern: 'generic' });
      expect(await c.request('interrupt', { session: 'w' })).toMatchObject({
        status: 'error',
        error: 'invalid_argument',
      });
    } finally {
      w.close();
    }
  });
});
