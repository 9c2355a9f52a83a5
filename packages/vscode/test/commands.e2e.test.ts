import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { spawnAgent, submissions, tuiAnswerText, waitState } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import { until } from '@clippy/testkit/until';
import {
  eventually,
  messageShown,
  run,
  screenOf,
  startExtension,
  viewChildren,
  viewNode,
  viewRows,
  type Running,
} from './harness.js';
import { editor, env, Uri, ViewColumn } from './vscode-double.js';

// The palette's and menus' commands against a real daemon: what the agents received (their own
// logs), what the daemon stored, and what the extension showed (the VS Code double's records).

let d: TestDaemon;
let c: ClippyClient;
let ext: Running;
let alphaLog: string;
let betaLog: string;

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  alphaLog = await spawnAgent(d, c, 'alpha', 'claude', 'claude');
  betaLog = await spawnAgent(d, c, 'beta', 'claude', 'claude');
  await spawnAgent(d, c, 'gone', 'aider', 'aider');
  await c.request('kill', { session: 'gone' });
  await waitState(c, 'gone', 'exited');
  ext = startExtension(d.env.env);
});

afterAll(async () => {
  ext?.stop();
  await c?.close();
  await d?.stop();
});

beforeEach(() => {
  editor.clearRecords();
  editor.answers.quickPick = () => undefined;
  editor.answers.message = () => undefined;
  editor.answers.inputBox = () => undefined;
});

/** Has `session` answer `text` (sent by the test's own client) and returns the turn. */
async function answered(session: string, text: string) {
  const last = (await c.request('list_turns', { session, limit: 1 })).turns[0];
  await c.request('send', { session, text, enter: true });
  return (
    await c.request(
      'wait_turn',
      { session, after: last?.turn_id ?? `${session}:0`, timeout_ms: 10_000 },
      { timeoutMs: 0 },
    )
  ).turn;
}

/** Waits until the agent logged more than `before` submissions; returns the last. */
async function received(log: string, before: number) {
  await until(() => submissions(log).length > before, 'the agent received it');
  return submissions(log).at(-1)!;
}

describe('Send Selection and Send File', () => {
  it('sends the selected lines as one message', async () => {
    editor.openEditor(
      'not this\nfirst selected\nsecond selected\nnor this\n',
      'first selected\nsecond selected\n',
    );
    const before = submissions(alphaLog).length;
    expect(await run('clippy.sendSelection', 'alpha')).toBe(true);
    expect(await received(alphaLog, before)).toMatchObject({
      text: 'first selected\nsecond selected',
      pasted: true,
    });
    expect(editor.messages).toEqual([
      { level: 'info', text: 'clippy: sent 2 lines to alpha', actions: [] },
    ]);
    await waitState(c, 'alpha', 'idle');
  });

  it('without a session named, offers the live ones to pick from', async () => {
    editor.openEditor('pick me', 'pick me');
    let offered: string[] = [];
    let placeHolder = '';
    editor.answers.quickPick = (items, ph) => {
      offered = items.map((i) => `${i.label}  ${i.description}`);
      placeHolder = ph;
      return items.find((i) => i.label === 'beta');
    };
    const before = submissions(betaLog).length;
    await run('clippy.sendSelection');
    expect(placeHolder).toBe('Send the selection to…');
    // `gone` has exited: not offered.
    expect(offered).toEqual(['alpha  idle · 1 turn', 'beta  idle · 0 turns']);
    expect((await received(betaLog, before)).text).toBe('pick me');
    await messageShown('info', /^clippy: sent 1 line to beta$/);
    await waitState(c, 'beta', 'idle');
  });

  it('Send File sends a file from the explorer (its final newline is not part of it)', async () => {
    const file = path.join(d.env.root, 'notes.txt');
    fs.writeFileSync(file, 'file line one\nfile line two\n');
    const before = submissions(betaLog).length;
    await run('clippy.sendFile', Uri.file(file), 'beta');
    expect((await received(betaLog, before)).text).toBe('file line one\nfile line two');
    await messageShown('info', /^clippy: sent notes\.txt \(2 lines\) to beta$/);
    await waitState(c, 'beta', 'idle');
  });

  it('an empty selection, an exited or unknown session: one clear error each', async () => {
    editor.openEditor('nothing selected here', '');
    await run('clippy.sendSelection', 'alpha');
    editor.openEditor('something', 'something');
    await run('clippy.sendSelection', 'gone');
    await run('clippy.sendSelection', 'ghost');
    await eventually(() => editor.messages.length === 3, 'three messages');
    const gone = (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'gone')!;
    expect(editor.messages.map((m) => [m.level, m.text])).toEqual([
      ['error', 'clippy: nothing to send: the selection is empty'],
      ['error', `clippy: session 'gone' (${gone.session}) has exited`],
      ['error', "clippy: no session has the ID or name 'ghost'"],
    ]);
  });
});

describe('Ask', () => {
  it('shows exactly the answer beside the editor, without a turn notification', async () => {
    editor.openEditor('context\nwhat is the answer?\n', 'what is the answer?');
    const before = submissions(alphaLog).length;
    const turn = (await run('clippy.ask', 'alpha')) as { turn_id: string; text: string };
    expect(submissions(alphaLog)[before]?.text).toBe('what is the answer?');
    const stored = (await c.request('get_turn', { session: 'alpha' })).turn;
    expect(turn.turn_id).toBe(stored.turn_id);
    expect(stored.prompt).toBe('what is the answer?');
    const shown = editor.shownDocuments.at(-1)!;
    expect(shown.text).toBe(tuiAnswerText('what is the answer?'));
    expect(shown.text).toBe(stored.text);
    expect(shown.viewColumn).toBe(ViewColumn.Beside);
    expect(shown.document.uri.scheme).toBe('clippy-turn');
    // The screen's text (alpha runs no hooks): not Markdown.
    expect(shown.document.languageId).toBe('plaintext');
    expect(editor.progress).toMatchObject([{ title: 'clippy: asking alpha', done: true }]);
    expect(editor.messages).toEqual([
      { level: 'info', text: `clippy: alpha answered (turn ${stored.turn_id})`, actions: [] },
    ]);
  });

  it("an agent that reports its own answer (Claude Code's hooks): its Markdown, shown as Markdown; the view gives its tokens", async () => {
    const answer = ['Here:', '', '```ts', 'const x = 1;', '```', '', '- one', '- two'].join('\n');
    const replies = path.join(d.env.root, 'md-replies.json');
    fs.writeFileSync(replies, JSON.stringify([answer]));
    await spawnAgent(d, c, 'md', 'claude', 'claude', ['--hooks', '--replies', replies]);
    editor.openEditor('show me code', 'show me code');
    const turn = (await run('clippy.ask', 'md')) as { turn_id: string };
    const stored = (await c.request('get_turn', { turn_id: turn.turn_id })).turn;
    expect(stored.text_source).toBe('agent');
    const shown = editor.shownDocuments.at(-1)!;
    expect(shown.text).toBe(answer);
    expect(shown.document.languageId).toBe('markdown');
    // Its tokens as the agent counted them (the fake's: the prompt's and the answer's length).
    const row = `md  idle · 1 turn · ${'show me code'.length}→${answer.length} tokens`;
    await eventually(async () => (await viewRows()).includes(row), `the view's row '${row}'`);
    const { rows } = await viewChildren('md');
    expect(rows[0]).toMatch(/ · claude's answer$/);
  });

  it('an exited session: the daemon says so, and nothing waits', async () => {
    editor.openEditor('hello?', 'hello?');
    await run('clippy.ask', 'gone');
    const m = await messageShown('error', /gone/);
    expect(m.text).toMatch(/^clippy: session 'gone' \(\w+\) has exited$/);
    expect(editor.shownDocuments).toEqual([]);
  });
});

describe('Relay, Capture, Paste, Show Turn', () => {
  it('Relay puts the latest turn of A into B', async () => {
    const from = await answered('alpha', 'relay this one');
    const before = submissions(betaLog).length;
    await run('clippy.relay', 'alpha', 'beta');
    expect(await received(betaLog, before)).toMatchObject({ text: from.text, pasted: true });
    await messageShown(
      'info',
      new RegExp(`^clippy: relayed ${from.turn_id} \\(\\d+ bytes\\) from alpha to beta$`),
    );
    await waitState(c, 'beta', 'idle');
  });

  it('Relay from the palette: pick the source among sessions with a turn, then the target', async () => {
    const asked: { placeHolder: string; offered: string[] }[] = [];
    editor.answers.quickPick = (items, placeHolder) => {
      asked.push({ placeHolder, offered: items.map((i) => i.label) });
      return items.find((i) => i.label === (asked.length === 1 ? 'beta' : 'alpha'));
    };
    const from = (await c.request('get_turn', { session: 'beta' })).turn;
    const before = submissions(alphaLog).length;
    await run('clippy.relay');
    expect(asked).toEqual([
      // alpha, beta and md (Ask's) have turns; `gone` has none.
      { placeHolder: 'Relay the latest turn of…', offered: ['alpha', 'beta', 'md'] },
      { placeHolder: 'Relay the latest turn of beta into…', offered: ['alpha', 'md'] },
    ]);
    expect((await received(alphaLog, before)).text).toBe(from.text);
    await waitState(c, 'alpha', 'idle');
  });

  it('Capture takes a turn into the relay buffer; Paste puts it into a session', async () => {
    const turn = await answered('alpha', 'capture this');
    await run('clippy.capture', 'alpha');
    const size = Buffer.byteLength(turn.text);
    await messageShown(
      'info',
      new RegExp(`^clippy: captured ${turn.turn_id} \\(${size} bytes of text, \\d+ raw\\)`),
    );
    const before = submissions(betaLog).length;
    await run('clippy.paste', 'beta');
    expect(await received(betaLog, before)).toMatchObject({ text: turn.text, pasted: true });
    await messageShown(
      'info',
      new RegExp(`^clippy: pasted ${turn.turn_id} \\(\\d+ bytes\\) into beta$`),
    );
    await waitState(c, 'beta', 'idle');
  });

  it("Show Turn opens a turn's text read-only: by ID, from the view, or picked", async () => {
    const turn = await answered('alpha', 'show this turn');
    await run('clippy.showTurn', turn.turn_id);
    expect(editor.shownDocuments.at(-1)).toMatchObject({ text: turn.text });
    expect(editor.shownDocuments.at(-1)!.document.uri.toString()).toBe(
      `clippy-turn:/alpha/${encodeURIComponent(turn.turn_id)}`,
    );
    // The view's turn rows open their turn when clicked.
    const { nodes } = await eventually(async () => {
      const v = await viewChildren('alpha');
      return v.rows[0]?.startsWith('#') ? v : undefined;
    }, "alpha's turns in the view");
    const provider = editor.treeProviders.get('clippy.sessions')!;
    const click = provider.getTreeItem(nodes[0]).command!;
    await run(click.command, ...(click.arguments ?? []));
    expect(editor.shownDocuments.at(-1)!.text).toBe(turn.text);
    // Picked: a session, then one of its turns (newest first).
    let offered: string[] = [];
    editor.answers.quickPick = (items) => {
      offered = items.map((i) => i.label);
      return items[0];
    };
    await run('clippy.showTurn', 'alpha');
    expect(offered[0]).toBe(`#${turn.seq} show this turn`);
    expect(editor.shownDocuments.at(-1)!.text).toBe(turn.text);
    expect(editor.messages.filter((m) => m.level === 'error')).toEqual([]);
  });

  it('a wrong turn ID or a session without turns: clear errors', async () => {
    await run('clippy.showTurn', 'alpha:999');
    await run('clippy.relay', 'gone', 'alpha');
    await eventually(() => editor.messages.length === 2, 'two messages');
    expect(editor.messages.map((m) => [m.level, m.text])).toEqual([
      ['error', "clippy: no stored turn has the ID 'alpha:999' (never existed, or evicted)"],
      ['error', "clippy: session 'gone' has no completed turn yet"],
    ]);
    expect(editor.shownDocuments).toEqual([]);
  });
});

describe('Navigate', () => {
  it('runs the navigator for a goal; the run is a session and its context opens beside', async () => {
    const repo = path.join(d.env.root, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(repo, 'src', 'parser.ts'),
      'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n',
    );
    fs.writeFileSync(
      path.join(repo, 'src', 'main.ts'),
      "import { parseConfig } from './parser';\nexport const config = parseConfig('{}');\n",
    );
    const turn = (await run('clippy.navigate', 'fix the config parser', repo)) as {
      turn_id: string;
      session: string;
    };
    expect(turn, JSON.stringify(editor.messages)).toBeDefined();
    const { sessions } = await c.request('list_sessions', {});
    const nav = sessions.find((s) => s.session === turn.session)!;
    expect(nav).toMatchObject({ kind: 'navigator', state: 'exited' });
    const stored = (await c.request('get_turn', { session: nav.session })).turn;
    const shown = editor.shownDocuments.at(-1)!;
    expect(shown.viewColumn).toBe(ViewColumn.Beside);
    expect(shown.text).toBe(stored.text);
    expect(shown.text).toContain('src/parser.ts');
    expect(editor.messages.at(-1)?.text).toBe(
      `clippy: the context for "fix the config parser" is turn ${stored.turn_id} of ${nav.name}; Relay Latest Turn hands it to an agent`,
    );
  });
});

describe('Remove Exited Session', () => {
  it('forgets an exited session after a confirmation that counts its turns; dismissed, it stays', async () => {
    await spawnAgent(d, c, 'done', 'aider', 'aider');
    await answered('done', 'last words');
    await c.request('kill', { session: 'done' });
    await waitState(c, 'done', 'exited');
    const names = async () => (await c.request('list_sessions', {})).sessions.map((s) => s.name);

    // Dismissed (Escape, or the dialog's Cancel): nothing is removed.
    expect(await run('clippy.remove', 'done')).toBeUndefined();
    // (The turn's own notification may be among the messages: only the warning is Remove's.)
    expect(editor.messages.filter((m) => m.level === 'warning')).toEqual([
      {
        level: 'warning',
        text: 'Remove done? Its 1 stored turn will be gone.',
        actions: ['Remove'],
        modal: true,
      },
    ]);
    expect(await names()).toContain('done');

    // From the view's context menu, confirmed: gone from the daemon and from the view.
    await eventually(async () => (await viewRows()).includes('done  exited · 1 turn'), 'done');
    editor.answers.message = (m) => (m.level === 'warning' ? 'Remove' : undefined);
    const id = (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'done')!;
    expect(await run('clippy.remove', await viewNode('done'))).toEqual({ removed: id.session });
    expect(await names()).not.toContain('done');
    await eventually(async () => !(await viewRows()).some((r) => r.startsWith('done ')), 'row');
  });

  it('offers only exited sessions; a running one is refused with what to do', async () => {
    let offered: string[] = [];
    editor.answers.quickPick = (items, ph) => {
      offered = items.map((i) => `${ph} ${i.label}  ${i.description}`);
      return undefined;
    };
    expect(await run('clippy.remove')).toBeUndefined();
    expect(offered).toContain('Remove the exited session… gone  exited · 0 turns');
    expect(offered.every((o) => o.includes('  exited · '))).toBe(true);

    await run('clippy.remove', 'alpha');
    const m = await messageShown('error', /alpha/);
    expect(m.text).toMatch(/^clippy: session 'alpha' is still running; kill it first/);
    expect((await c.request('list_sessions', {})).sessions.map((s) => s.name)).toContain('alpha');
  });
});

describe('New Session', () => {
  it('asks for the command, the preset and the history, starts it in the workspace folder and opens it', async () => {
    const folder = path.join(d.env.root, 'project');
    fs.mkdirSync(folder, { recursive: true });
    editor.workspaceFolders = [folder];
    const log = path.join(d.env.root, 'fresh.log');
    const { command, args } = agentCommand('claude', ['--log', log]);
    const line = [command, ...args].join(' ');
    const asked: { title?: string; value?: string }[] = [];
    editor.answers.inputBox = (_prompt, options) => {
      asked.push({ title: options?.title, value: options?.value });
      return line;
    };
    const offered: Record<string, string[]> = {};
    editor.answers.quickPick = (items, _ph, options) => {
      offered[options?.title ?? ''] = items.map((i) => `${i.label}  ${i.description}`);
      if (options?.title?.includes('preset')) return items.find((i) => i.label === 'claude');
      return items.find((i) => i.description === '--persist');
    };
    const created = (await run('clippy.newSession')) as { session: string; name: string };
    expect(created, JSON.stringify(editor.messages)).toBeDefined();
    expect(asked).toEqual([
      { title: 'New clippy session (1/3): command', value: expect.any(String) as string },
    ]);
    // The program is node (the fake agent is a script): its preset comes first, then the default.
    const presets = offered['New clippy session (2/3): turn preset']!;
    expect(presets[0]).toBe('node  line · for node');
    expect(presets[1]).toBe('generic  line · the default');
    expect(presets).toContain('claude  screen');
    expect(offered['New clippy session (3/3): turn history']).toEqual([
      "As configured  config.json's persist (off unless set)",
      'Keep its turns on disk  --persist',
      'Do not keep them on disk  --no-persist',
    ]);
    const s = (await c.request('list_sessions', {})).sessions.find(
      (x) => x.session === created.session,
    )!;
    expect(s).toMatchObject({ cwd: folder, preset: 'claude', persisted: true, command });
    expect(s.args).toEqual(args);
    // Opened in a terminal, as `clippy new` attaches: the agent's screen is there.
    const term = await eventually(
      () => editor.terminals.find((t) => t.name === `clippy: ${created.name}`),
      'its terminal',
    );
    await waitState(c, created.name, 'idle');
    await eventually(
      async () => (await screenOf(term)).some((l) => l.startsWith('❯')),
      'its input box on the screen',
    );
    await messageShown(
      'info',
      new RegExp(`^clippy: started ${created.name} \\(\`.*\`, preset claude\\) in ${folder}$`),
    );
    // The command is offered again next time.
    asked.length = 0;
    editor.answers.inputBox = (_prompt, options) => {
      asked.push({ title: options?.title, value: options?.value });
      return undefined;
    };
    expect(await run('clippy.newSession')).toBeUndefined();
    expect(asked[0]?.value).toBe(line);
    term.dispose();
    await c.request('kill', { session: created.session });
  });

  it('given everything, asks nothing; no workspace folder: the home directory', async () => {
    editor.workspaceFolders = [];
    editor.answers.inputBox = () => {
      throw new Error('asked for the command');
    };
    editor.answers.quickPick = () => {
      throw new Error('asked to pick');
    };
    const created = (await run('clippy.newSession', {
      command: 'sh -c \'printf "ok> "; read x\'',
      preset: 'generic',
      persist: null,
      name: 'given',
      open: false,
    })) as { session: string; name: string };
    expect(created.name).toBe('given');
    const s = (await c.request('list_sessions', {})).sessions.find((x) => x.name === 'given')!;
    // Quotes are a shell's: the script is one argument.
    expect([s.command, ...s.args]).toEqual(['sh', '-c', 'printf "ok> "; read x']);
    expect(s.cwd).toBe(os.homedir());
    expect(s.persisted).toBeUndefined();
    expect(editor.terminals.some((t) => t.name === 'clippy: given')).toBe(false);
    await c.request('kill', { session: 'given' });
  });

  it('a program that does not exist, an unknown preset, a pipeline: one clear error each, nothing started', async () => {
    const before = (await c.request('list_sessions', {})).sessions.length;
    await run('clippy.newSession', {
      command: 'no-such-agent-xyz',
      preset: 'generic',
      persist: null,
    });
    await run('clippy.newSession', { command: 'bash', preset: 'nosuch', persist: null });
    await run('clippy.newSession', { command: 'ls | head', preset: 'generic', persist: null });
    await eventually(() => editor.messages.length === 3, 'three messages');
    const texts = editor.messages.map((m) => `${m.level} ${m.text}`);
    expect(texts[0]).toMatch(
      /^error clippy: could not start `no-such-agent-xyz`: .*no-such-agent-xyz/,
    );
    expect(texts[1]).toMatch(
      /^error clippy: could not start `bash`: unknown preset "nosuch"; known presets: aider, bash/,
    );
    expect(texts[2]).toBe(
      "error clippy: 'ls | head' is more than a command: for pipes, redirections or globs run a shell, e.g. sh -c 'ls | head'",
    );
    expect((await c.request('list_sessions', {})).sessions.length).toBe(before);
  });
});

describe('Kill Session', () => {
  it('kills a session after a confirmation; dismissed, it runs on; its turns stay readable', async () => {
    await spawnAgent(d, c, 'victim', 'aider', 'aider');
    await answered('victim', 'famous last words');
    // Dismissed: nothing happens.
    expect(await run('clippy.kill', 'victim')).toBeUndefined();
    const warning = editor.messages.find((m) => m.level === 'warning')!;
    expect(warning).toMatchObject({ actions: ['Kill'], modal: true });
    expect(warning.text).toMatch(/^Kill victim\? .*aider\.m?js.* \(pid \d+\) ends\.$/);
    const state = async () =>
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'victim')?.state;
    expect(await state()).toBe('idle');
    // Confirmed, from the view's context menu.
    editor.answers.message = (m) => (m.level === 'warning' ? 'Kill' : undefined);
    await eventually(async () => (await viewRows()).some((r) => r.startsWith('victim ')), 'row');
    const id = (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'victim')!;
    expect(await run('clippy.kill', await viewNode('victim'))).toEqual({ killed: id.session });
    await waitState(c, 'victim', 'exited');
    await messageShown(
      'info',
      /^clippy: killed victim; its 1 turn stay readable until you remove it$/,
    );
    expect((await c.request('get_turn', { session: id.session })).turn.prompt).toBe(
      'famous last words',
    );
  });

  it('offers only live sessions; an exited one is refused, saying what to do', async () => {
    let offered: string[] = [];
    editor.answers.quickPick = (items) => {
      offered = items.map((i) => `${i.label}  ${String(i.description)}`);
      return undefined;
    };
    expect(await run('clippy.kill')).toBeUndefined();
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.every((o) => !o.includes('exited'))).toBe(true);
    editor.answers.message = (m) => (m.level === 'warning' ? 'Kill' : undefined);
    await run('clippy.kill', 'gone');
    const m = await messageShown('error', /gone/);
    expect(m.text).toBe("clippy: session 'gone' has already exited: Remove forgets it");
    // Refused before any dialog.
    expect(editor.messages.filter((x) => x.level === 'warning')).toEqual([]);
  });
});

describe('Open Web View', () => {
  it('opens a 0600 page that leads to the URL, so the token is on no command line; names only its address', async () => {
    const first = (await run('clippy.openWeb')) as { url: string; started: boolean };
    try {
      expect(first.started).toBe(true);
      const again = await c.request('web_start', {});
      expect(again).toMatchObject({ url: first.url, started: false });
      // The opener gets a file, never the URL: its command line would show the token to all.
      expect(editor.openedExternal).toHaveLength(1);
      const target = editor.openedExternal[0] as Uri;
      expect(target.scheme).toBe('file');
      expect(String(target)).not.toContain(again.token);
      expect(fs.statSync(target.fsPath).mode & 0o777).toBe(0o600);
      expect(path.dirname(target.fsPath)).toBe(path.dirname(d.env.socket));
      // The page sends the browser on with a one-time code, not the token (the browser's
      // history keeps the address it opened).
      const html = fs.readFileSync(target.fsPath, 'utf8');
      const origin = new URL(first.url).origin;
      expect(html).toMatch(new RegExp(`url=${origin}/#code=[0-9a-f]{32}"`, 'u'));
      expect(html).not.toContain(again.token);
      expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await messageShown('info', /web view/);
      expect(editor.messages.map((m) => m.text)).toEqual([
        `clippy: the web view (${origin}, just started) opened in your browser`,
      ]);
      expect(JSON.stringify(editor.messages)).not.toContain(again.token);
      // No browser: says where it runs and how to get the URL.
      editor.openExternalResult = false;
      await run('clippy.openWeb');
      await messageShown('warning', /no browser/);
      editor.openExternalResult = true;
      // A remote window: the page would be on the other machine; the URL goes to the clipboard.
      env.remoteName = 'ssh-remote';
      editor.openedExternal.length = 0;
      await run('clippy.openWeb');
      await messageShown('info', /in the clipboard/);
      expect(env.clipboard.text).toBe(first.url);
      expect(editor.openedExternal).toEqual([]);
    } finally {
      env.remoteName = undefined;
      editor.openExternalResult = true;
      await c.request('web_stop', {});
    }
  });
});
