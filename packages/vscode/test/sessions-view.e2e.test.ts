import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnAgent, spawnProgram, waitState } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import {
  eventually,
  messageShown,
  run,
  startExtension,
  statusText,
  viewChildren,
  viewRows,
  type Running,
} from './harness.js';
import { editor } from './vscode-double.js';

// The "clippy" view, the status bar and the notifications, fed by a real daemon's pushes while
// fake agents and a real bash work in real PTYs.

let d: TestDaemon;
let c: ClippyClient;
let ext: Running;

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  await spawnAgent(d, c, 'alpha', 'claude', 'claude');
  await spawnAgent(d, c, 'beta', 'aider', 'aider');
  editor.viewVisible = true;
  ext = startExtension(d.env.env);
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

/** Waits until the view's row of session `name` reads `text`. */
async function rowReads(name: string, text: string): Promise<void> {
  let last: string | undefined;
  await eventually(async () => {
    last = (await viewRows()).find((x) => x.startsWith(`${name}  `));
    return last === text;
  }, `the view's row of ${name} reading '${text}' (it reads '${last}')`);
}

/** Waits until the status bar reads `text`. */
function statusReads(text: string): Promise<boolean> {
  return eventually(
    () => statusText() === text,
    `the status bar reading '${text}' (it reads '${statusText()}')`,
  );
}

describe('the clippy view and the status bar', () => {
  it('lists every session with its state and turn count; the status bar counts them', async () => {
    await rowReads('alpha', 'alpha  idle · 0 turns');
    await rowReads('beta', 'beta  idle · 0 turns');
    await statusReads('$(hubot) 0 busy · 0 blocked · 2 idle');
    // The daemon was running: showing the view started nothing, asked nothing.
    expect(editor.messages).toEqual([]);
  });

  it('sets the context keys that enable the commands, from what the daemon says', async () => {
    const keys = () =>
      Object.fromEntries([...editor.context].filter(([k]) => k.startsWith('clippy.')));
    await eventually(() => editor.context.get('clippy.connected') === true, 'connected');
    // Two live sessions, no turn yet, none exited.
    expect(keys()).toEqual({
      'clippy.connected': true,
      'clippy.hasSessions': true,
      'clippy.hasLiveSessions': true,
      'clippy.hasExitedSessions': false,
      'clippy.hasTurns': false,
      'clippy.hasWorktrees': false,
    });
  });

  it("follows an agent going busy, then idle with a turn, from the daemon's pushes", async () => {
    editor.answers.message = (m) => (m.text.includes('finished a turn') ? 'Show Turn' : undefined);
    await spawnAgent(d, c, 'slowpoke', 'slow', 'aider');
    await rowReads('slowpoke', 'slowpoke  idle · 0 turns');
    await c.request('send', { session: 'slowpoke', text: 'take your time', enter: true });
    // The slow agent answers in pieces over seconds: busy is seen, then idle with its turn.
    await rowReads('slowpoke', 'slowpoke  busy · 0 turns');
    await statusReads('$(hubot) 1 busy · 0 blocked · 2 idle');
    await rowReads('slowpoke', 'slowpoke  idle · 1 turn');
    await statusReads('$(hubot) 0 busy · 0 blocked · 3 idle');
    // A turn now exists: Show Turn, Capture and Relay are enabled.
    expect(editor.context.get('clippy.hasTurns')).toBe(true);
    const turn = (await c.request('get_turn', { session: 'slowpoke' })).turn;
    // Expanded, the session shows its turns, newest first.
    const { rows } = await viewChildren('slowpoke');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^#1 take your time {2}\S.* · \d+\.\ds · \d+ bytes$/);
    // And a notification says the turn is done, offering to show it or open the session.
    const note = await messageShown('info', /finished a turn/);
    expect(note).toMatchObject({
      text: `clippy: slowpoke finished a turn (${turn.turn_id})`,
      actions: ['Show Turn', 'Open'],
      picked: 'Show Turn',
    });
    // Show Turn: the turn's text in a read-only document.
    const shown = await eventually(() => editor.shownDocuments.at(-1), 'the turn shown');
    expect(shown.text).toBe(turn.text);
    expect(shown.document.uri.scheme).toBe('clippy-turn');
  });

  it('shows routes under the sessions they join', async () => {
    await c.request('add_route', { from: ['alpha'], to: 'beta', name: 'r-view' });
    await rowReads('alpha', 'alpha  idle · 0 turns · 1 route');
    await rowReads('beta', 'beta  idle · 0 turns · 1 route');
    expect((await viewChildren('alpha')).rows).toEqual(['→ beta  route r-view · active · fired 0']);
    expect((await viewChildren('beta')).rows).toEqual(['← alpha  route r-view · active · fired 0']);
    await c.request('remove_route', { route: 'r-view' });
    await rowReads('alpha', 'alpha  idle · 0 turns');
  });

  it('a session that asks a question: counted as blocked, a notification whose Open shows it', async () => {
    editor.answers.message = (m) => (m.text.includes('needs you') ? 'Open' : undefined);
    await spawnProgram(d, c, 'sh', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    await c.request('send', { session: 'sh', text: 'read -r line', enter: true });
    await waitState(c, 'sh', 'blocked');
    const note = await messageShown('warning', /needs you/);
    expect(note).toMatchObject({
      text: 'clippy: sh needs you: it waits for your input',
      actions: ['Open'],
      picked: 'Open',
    });
    await rowReads('sh', 'sh  blocked · 0 turns');
    await statusReads('$(hubot) 0 busy · 1 blocked · 3 idle');
    const item = editor.statusBarItems.find((i) => i.name === 'clippy')!;
    expect(item.backgroundColor?.id).toBe('statusBarItem.warningBackground');
    // Open: the session in a terminal, where the question is answered.
    const term = await eventually(
      () => editor.terminals.find((t) => t.name === 'clippy: sh'),
      'a terminal for sh',
    );
    expect(editor.activeTerminal).toBe(term);
    await eventually(() => term.output.includes('read -r line'), 'the replayed screen');
    term.type('an answer\r');
    await waitState(c, 'sh', 'idle');
    await statusReads('$(hubot) 0 busy · 0 blocked · 4 idle');
    expect(item.backgroundColor).toBeUndefined();
    term.dispose();
  });

  it('an exited session stays listed, after the live ones', async () => {
    await c.request('kill', { session: 'beta' });
    await rowReads('beta', 'beta  exited · 0 turns');
    const rows = await viewRows();
    expect(rows.at(-1)).toBe('beta  exited · 0 turns');
    await statusReads('$(hubot) 0 busy · 0 blocked · 3 idle');
    await eventually(
      () => editor.context.get('clippy.hasExitedSessions') === true,
      'Remove enabled',
    );
  });

  it('Refresh reads the lists again', async () => {
    expect(await run('clippy.refresh')).toEqual({ kind: 'connected' });
    expect(editor.messages).toEqual([]);
  });
});
