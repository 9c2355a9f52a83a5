import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnAgent } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import {
  eventually,
  messageShown,
  run,
  startExtension,
  viewRows,
  type Running,
} from './harness.js';
import { editor, window } from './vscode-double.js';

// The daemon's notifications in VS Code and its unread marks in the sessions view: the window
// says which session its terminal shows and whether it has focus; the daemon tells it of the
// others' turns, once; a turn shown in a tab (or a session open in the focused window) is read.

let d: TestDaemon;
let c: ClippyClient;
let ext: Running;

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  await spawnAgent(d, c, 'a', 'aider', 'aider');
  await spawnAgent(d, c, 'b', 'aider', 'aider');
  editor.viewVisible = true;
  ext = startExtension(d.env.env);
  // The window told the daemon it is there (what it shows, that it has focus).
  await eventually(async () => {
    const { clients } = await c.request('notify_settings', {});
    return clients.some((x) => x.kind === 'editor');
  }, 'the window known to the daemon');
});

afterAll(async () => {
  ext?.stop();
  await c?.close();
  await d?.stop();
});

beforeEach(() => {
  editor.clearRecords();
  editor.answers.message = () => undefined;
});

/** Sends a prompt and waits for its turn's event (a `wait_turn` would count as showing it). */
async function turn(name: string, text: string): Promise<string> {
  await c.request('subscribe', { events: ['turn_completed'] });
  const done = new Promise<string>((resolve) => {
    const off = c.on('turn_completed', (p) => {
      if (p.name !== name) return;
      off();
      resolve(p.turn.turn_id);
    });
  });
  await c.request('send', { session: name, text, enter: true });
  return done;
}

const rowOf = async (name: string) => (await viewRows()).find((r) => r.startsWith(`${name}  `));
const turnNotes = () => editor.messages.filter((m) => /finished a turn/.test(m.text));

describe('notifications and unread turns in VS Code', { timeout: 90_000 }, () => {
  it('a finished turn: one notification, an unread mark in the view; Show Turn reads it (CLI too)', async () => {
    editor.answers.message = (m) => (m.text.includes('finished a turn') ? 'Show Turn' : undefined);
    const id = await turn('a', 'first');
    const note = await messageShown('info', /a finished a turn/);
    expect(note.text).toBe(`clippy: a finished a turn (${id})`);
    await eventually(async () => (await rowOf('a')) === 'a  idle · 1 turn', 'read once shown');
    expect(turnNotes()).toHaveLength(1);
    const ls = JSON.parse((await runClippy(['ls', '--json'], d.env.env)).stdout) as {
      sessions: { name: string; unread: number }[];
    };
    expect(ls.sessions.find((s) => s.name === 'a')?.unread).toBe(0);
  });

  it('dismissed, the answer stays unread in the view until it is shown', async () => {
    await turn('b', 'unseen');
    await messageShown('info', /b finished a turn/);
    await eventually(async () => (await rowOf('b')) === 'b  idle · 1 turn · 1 unread', 'unread');
    await run('clippy.attach', 'b');
    await eventually(async () => (await rowOf('b')) === 'b  idle · 1 turn', 'read on attach');
  });

  it('quiet for the session the focused window shows; told once the window loses focus', async () => {
    // b's terminal is the active one (opened above), in a focused window.
    await eventually(async () => {
      const { clients } = await c.request('notify_settings', {});
      return clients.some((x) => x.kind === 'editor' && x.viewing !== null && x.visible);
    }, 'the window showing b');
    await turn('b', 'while shown');
    await turn('a', 'elsewhere');
    await messageShown('info', /a finished a turn/);
    expect(turnNotes().map((m) => m.text.split(' ')[1])).toEqual(['a']);
    expect(await rowOf('b')).toBe('b  idle · 2 turns');
    window.focusWindow(false);
    await eventually(async () => {
      const { clients } = await c.request('notify_settings', {});
      return clients.some((x) => x.kind === 'editor' && !x.visible);
    }, 'the window without focus');
    await turn('b', 'away');
    await messageShown('info', /b finished a turn/);
    window.focusWindow(true);
  });
});
