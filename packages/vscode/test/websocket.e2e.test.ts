import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnAgent, submissions } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import { eventually, run, screenOf, startExtension, viewRows, type Running } from './harness.js';
import { editor } from './vscode-double.js';

// `clippy.transport: ws`: the same extension over the daemon's WebSocket endpoint (ws.sock).

let d: TestDaemon;
let c: ClippyClient;
let ext: Running;

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  editor.viewVisible = true;
});

afterAll(async () => {
  ext?.stop();
  await c?.close();
  await d?.stop();
});

it('lists, sends and attaches over the WebSocket endpoint', async () => {
  const log = await spawnAgent(d, c, 'alpha', 'claude', 'claude');
  ext = startExtension(d.env.env, { 'clippy.transport': 'ws' });
  await eventually(async () => (await viewRows()).join() === 'alpha  idle · 0 turns', 'the view');
  editor.openEditor('over the websocket', 'over the websocket');
  await run('clippy.sendSelection', 'alpha');
  await eventually(() => submissions(log).at(-1)?.text === 'over the websocket', 'alpha got it');
  // Nobody has looked at the answer yet: unread, until the session is opened.
  await eventually(
    async () => (await viewRows()).join() === 'alpha  idle · 1 turn · 1 unread',
    'its turn',
  );
  await run('clippy.attach', 'alpha');
  await eventually(async () => (await viewRows()).join() === 'alpha  idle · 1 turn', 'read');
  const term = await eventually(() => editor.terminals[0], 'a terminal');
  await eventually(
    async () => (await screenOf(term)).some((l) => l.includes('⏺ ANSWER: over the websocket')),
    'the replayed screen',
  );
  term.type('typed over ws');
  await eventually(
    async () => (await screenOf(term)).some((l) => l.includes('❯ typed over ws')),
    'the echo',
  );
  term.dispose();
  expect(editor.messages.filter((m) => m.level !== 'info')).toEqual([]);
});
