import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnAgent, submissions, waitState } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import {
  eventually,
  messageShown,
  run,
  screenOf,
  startExtension,
  type Running,
} from './harness.js';
import { editor, type Terminal } from './vscode-double.js';

// Open in Terminal: a VS Code terminal (the double's, rendered by xterm.js as VS Code's is)
// backed by the attach protocol, against the real daemon and fake agents in real PTYs.

let d: TestDaemon;
let c: ClippyClient;
let ext: Running;
let alphaLog: string;

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  alphaLog = await spawnAgent(d, c, 'alpha', 'claude', 'claude');
  // A turn of its own on alpha's screen, to find in the replay.
  await c.request('send', { session: 'alpha', text: 'show me in a terminal', enter: true });
  // `after` none: the turn may complete before this request arrives.
  await c.request(
    'wait_turn',
    { session: 'alpha', after: 'alpha:0', timeout_ms: 10_000 },
    { timeoutMs: 0 },
  );
  ext = startExtension(d.env.env);
});

afterAll(async () => {
  ext?.stop();
  await c?.close();
  await d?.stop();
});

beforeEach(() => editor.clearRecords());

async function session(name: string) {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((s) => s.name === name && s.state !== 'exited')!;
}

/** Waits until the terminal's screen has a line containing `text`. */
async function onScreen(t: Terminal, text: string): Promise<string[]> {
  let lines: string[] = [];
  await eventually(
    async () => {
      lines = await screenOf(t);
      return lines.some((l) => l.includes(text));
    },
    `'${text}' on the terminal's screen:\n${lines.join('\n')}`,
  );
  return lines;
}

describe('a session in a VS Code terminal', () => {
  let term: Terminal;

  it('opens with the replayed screen', async () => {
    await run('clippy.attach', 'alpha');
    term = await eventually(
      () => editor.terminals.find((t) => t.name === 'clippy: alpha'),
      'a terminal named clippy: alpha',
    );
    expect(editor.activeTerminal).toBe(term);
    await eventually(async () => (await session('alpha')).clients === 1, 'attached');
    const lines = await onScreen(term, '⏺ ANSWER: show me in a terminal');
    // The input box is there too, as the agent drew it.
    expect(lines.some((l) => l.startsWith('❯'))).toBe(true);
    // The terminal's size went to the session.
    expect(await session('alpha')).toMatchObject({ cols: 80, rows: 24 });
    expect(editor.messages).toEqual([]);
  });

  it('types keystrokes into the session: the echo shows, Enter submits, the answer streams in', async () => {
    const before = submissions(alphaLog).length;
    term.type('typed in vs code');
    await onScreen(term, '❯ typed in vs code');
    term.type('\r');
    await eventually(() => submissions(alphaLog).length > before, 'alpha received it');
    expect(submissions(alphaLog).at(-1)?.text).toBe('typed in vs code');
    await onScreen(term, '⏺ ANSWER: typed in vs code');
    await waitState(c, 'alpha', 'idle');
  });

  it('resizes the session with the terminal', async () => {
    term.resize(100, 30);
    await eventually(async () => {
      const s = await session('alpha');
      return s.cols === 100 && s.rows === 30;
    }, 'alpha resized to 100×30');
  });

  it('a second Open shows the same terminal', async () => {
    await run('clippy.attach', 'alpha');
    expect(editor.terminals.filter((t) => t.name === 'clippy: alpha')).toEqual([term]);
    expect(editor.shownTerminals).toEqual([term]);
  });

  it('closing the terminal detaches; the session keeps running', async () => {
    term.dispose();
    await eventually(async () => (await session('alpha')).clients === 0, 'detached');
    const alpha = await session('alpha');
    expect(alpha.state).toBe('idle');
    // Still alive and answering: a turn after the ones stored before the question (one that
    // ends before the wait arrives counts).
    const before = (await c.request('list_turns', { session: 'alpha', limit: 1 })).turns[0];
    const r = await c.request('send', { session: 'alpha', text: 'still there?', enter: true });
    expect(r.submitted).toBe(true);
    await c.request(
      'wait_turn',
      { session: 'alpha', after: before?.turn_id ?? 'alpha:0', timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
    // A new Open makes a new terminal.
    await run('clippy.attach', 'alpha');
    const again = await eventually(
      () => editor.terminals.find((t) => t.name === 'clippy: alpha' && t !== term),
      'a new terminal',
    );
    await onScreen(again, '⏺ ANSWER: still there?');
    again.dispose();
    await eventually(async () => (await session('alpha')).clients === 0, 'detached again');
  });

  it("a flood of output, past the daemon's pause threshold, arrives whole and in order", async () => {
    // 2.5 MB: more than twice the daemon's 1,000,000 unacked bytes at which it pauses the PTY.
    await spawnAgent(d, c, 'flood', 'aider', 'aider', ['--big', '2500000']);
    await run('clippy.attach', 'flood');
    const t = await eventually(
      () => editor.terminals.find((x) => x.name === 'clippy: flood'),
      'a terminal for flood',
    );
    await eventually(async () => (await session('flood')).clients === 1, 'attached');
    await c.request('send', { session: 'flood', text: 'flood me', enter: true });
    await eventually(() => t.output.includes('End of answer.'), 'the whole answer', 30_000);
    const seq = [...t.output.matchAll(/big (\d{8}) x{66}/g)].map((m) => Number(m[1]));
    expect(seq.length).toBeGreaterThan(31_000);
    expect(seq.every((n, i) => n === i + 1)).toBe(true);
    t.dispose();
  });

  it('when the session ends the terminal says so, and closes on the next key', async () => {
    await spawnAgent(d, c, 'brief', 'aider', 'aider');
    await run('clippy.attach', 'brief');
    const t = await eventually(
      () => editor.terminals.find((x) => x.name === 'clippy: brief'),
      'a terminal for brief',
    );
    await onScreen(t, 'Aider v0.81.1');
    await eventually(async () => (await session('brief')).clients === 1, 'attached');
    await c.request('send', { session: 'brief', text: '/exit', enter: true, force: true });
    const lines = await onScreen(t, '[clippy: brief exited with code 0');
    expect(lines.at(-1)).toBe(
      '[clippy: brief exited with code 0; press any key to close this terminal]',
    );
    expect(t.closedBy).toBeNull();
    t.type('x');
    expect(t.closedBy).toEqual({ code: undefined });
  });

  it('an exited or unknown session is an error message, and no terminal', async () => {
    const count = editor.terminals.length;
    await run('clippy.attach', 'brief');
    await messageShown('error', /brief/);
    await run('clippy.attach', 'nobody');
    await messageShown('error', /nobody/);
    expect(editor.messages.map((m) => [m.level, m.text])).toEqual([
      ['error', "clippy: session 'brief' has exited: there is nothing to attach to"],
      ['error', "clippy: no session has the ID or name 'nobody'"],
    ]);
    expect(editor.terminals.length).toBe(count);
  });
});
