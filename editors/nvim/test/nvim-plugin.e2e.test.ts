import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { PROTOCOL_VERSION } from '@clippy/protocol';
import { agentCommand } from '@clippy/testkit/agents/index';
import { spawnAgent, submissions, tuiAnswerText, waitState } from '@clippy/testkit/agents/harness';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { otherRelease } from '@clippy/testkit/other-release';
import { Nvim, nvimPluginDir } from '@clippy/testkit/nvim';
import { bins } from '@clippy/testkit/paths';
import { eventually as testkitEventually, until } from '@clippy/testkit/until';
import { programMissing } from '@clippy/testkit/requirements';

// The Neovim plugin (editors/nvim) in a real headless Neovim, against the real daemon and
// fake agents in real PTYs: what a person sees in the editor (buffers, messages) and what the
// agents received (their own logs).

/** Per test: Neovim, agents and sometimes a daemon start and stop on a loaded 2-core box. */
const E2E_TIMEOUT_MS = 60_000;
/** How long a result the plugin shows asynchronously (a buffer, a message) may take. */
const SHOWN_TIMEOUT_MS = 15_000;

const hasNvim = programMissing('nvim', 'neovim') === null;
const nvims: Nvim[] = [];
const ERROR = 4; // vim.log.levels.ERROR

/** Neovim with the plugin, set up to start clippy's own built CLI (not one on PATH). */
async function startNvim(env: NodeJS.ProcessEnv, setup = ''): Promise<Nvim> {
  const n = await Nvim.start(env);
  nvims.push(n);
  await n.lua(
    `require('clippy').setup(vim.tbl_extend('force', { clippy_cmd = { ... } }, ${setup || '{}'}))`,
    process.execPath,
    bins.clippy,
  );
  return n;
}

/** testkit's `eventually` with this file's patience (SHOWN_TIMEOUT_MS). */
function eventually<T>(
  check: () => Promise<T | false | null | undefined>,
  what: string | (() => Promise<string>),
): Promise<T> {
  return testkitEventually(check, what, SHOWN_TIMEOUT_MS);
}

/** Waits for a vim.notify message matching `re` and returns it. */
async function note(n: Nvim, re: RegExp): Promise<{ msg: string; level: number }> {
  return eventually(
    async () => (await n.notes()).find((x) => re.test(x.msg)),
    async () => `a message matching ${re}; got: ${JSON.stringify(await n.notes())}`,
  );
}

/** Waits until the buffer named `name` exists and satisfies `ok`; returns its lines. */
async function buffer(n: Nvim, name: string, ok: (l: string[]) => boolean = () => true) {
  return eventually(
    async () => {
      const lines = await n.bufferLines(name);
      return lines && ok(lines) ? lines : null;
    },
    async () =>
      `buffer ${name}: ${JSON.stringify(await n.bufferLines(name))}; messages: ${JSON.stringify(await n.notes())}`,
  );
}

/** Fills the current buffer with `lines`. */
function setLines(n: Nvim, lines: string[]): Promise<unknown> {
  return n.lua('vim.cmd("enew!") vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)', lines);
}

afterEach(async () => {
  for (const n of nvims.splice(0)) await n.dispose();
});

it('the plugin speaks the protocol version of packages/protocol', () => {
  const lua = fs.readFileSync(path.join(nvimPluginDir, 'lua', 'clippy', 'config.lua'), 'utf8');
  expect(lua).toMatch(new RegExp(`^M\\.PROTOCOL_VERSION = ${PROTOCOL_VERSION}$`, 'm'));
});

describe.skipIf(!hasNvim)(':help clippy', () => {
  it('doc/clippy.txt has a tag for every command; :help finds them once helptags ran', async () => {
    // A copy of the doc directory: helptags writes its tags file beside the help file.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-nvim-doc-'));
    try {
      fs.cpSync(path.join(nvimPluginDir, 'doc'), path.join(copy, 'doc'), { recursive: true });
      fs.rmSync(path.join(copy, 'doc', 'tags'), { force: true });
      const n = await startNvim({ ...process.env });
      // A duplicate or malformed tag makes helptags fail (E154), and the request with it.
      await n.command(`helptags ${path.join(copy, 'doc')}`);
      await n.command(`set runtimepath^=${copy}`);
      await n.command('help clippy');
      expect(await n.lua('return vim.fn.expand("%:t")')).toBe('clippy.txt');
      expect(await n.lua('return vim.fn.getline(".")')).toContain('*clippy*');
      const commands = Object.keys(
        await n.lua<Record<string, unknown>>('return vim.api.nvim_get_commands({})'),
      ).filter((c) => c.startsWith('Clippy'));
      expect(commands.sort()).toEqual([
        'ClippyAsk',
        'ClippyAttach',
        'ClippyCapture',
        'ClippyDiff',
        'ClippyKill',
        'ClippyNew',
        'ClippyPaste',
        'ClippyPut',
        'ClippyRelay',
        'ClippyRemove',
        'ClippySend',
        'ClippySessions',
        'ClippyTurns',
        'ClippyWait',
        'ClippyYank',
      ]);
      for (const cmd of commands) {
        await n.command(`help :${cmd}`);
        expect(await n.lua('return vim.fn.getline(".")'), cmd).toContain(`*:${cmd}*`);
      }
      for (const topic of ['clippy-windows', 'clippy-keys', 'clippy-options', 'clippy-setup']) {
        await n.command(`help ${topic}`);
        expect(await n.lua('return vim.fn.getline(".")'), topic).toContain(`*${topic}*`);
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasNvim)('with a daemon and fake agents', { timeout: E2E_TIMEOUT_MS }, () => {
  let d: TestDaemon;
  let c: ClippyClient;
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
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await c?.close();
    await d?.stop();
  });

  /** Has `session` answer `text` (sent by the test's own client) and waits for the turn. */
  async function answered(session: string, text: string): Promise<void> {
    const last = (await c.request('list_turns', { session, limit: 1 })).turns[0];
    await c.request('send', { session, text, enter: true });
    await c.request(
      'wait_turn',
      { session, after: last?.turn_id ?? `${session}:0`, timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
  }

  /** The latest turn of a session, as the daemon stored it. */
  async function latest(session: string) {
    return (await c.request('get_turn', { session })).turn;
  }

  it(':ClippySessions lists every session with its state', async () => {
    const n = await startNvim(d.env.env);
    await n.command('ClippySessions');
    const lines = await buffer(n, 'clippy://sessions');
    expect(lines[0]).toMatch(/^NAME\s+STATE\s+TURNS\s+CLIENTS\s+COMMAND$/);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))?.split(/\s+/);
    expect(row('alpha')?.slice(0, 2)).toEqual(['alpha', 'idle']);
    expect(row('beta')?.slice(0, 2)).toEqual(['beta', 'idle']);
    expect(row('gone')?.slice(0, 2)).toEqual(['gone', 'exited']);
    expect(lines).toHaveLength(4);
  });

  it('completes session names from the live daemon, for both arguments of :ClippyRelay', async () => {
    const n = await startNvim(d.env.env);
    const complete = (line: string) =>
      n.lua<string[]>('return vim.fn.getcompletion(..., "cmdline")', line);
    expect(await complete('ClippySend a')).toEqual(['alpha']);
    // Live sessions first, then exited ones (whose turns can still be read and relayed).
    expect(await complete('ClippyTurns ')).toEqual(['alpha', 'beta', 'gone']);
    expect(await complete('ClippyRelay alpha b')).toEqual(['beta']);
    expect(await complete('ClippyAttach x')).toEqual([]);
  });

  it(':ClippySend sends the selected lines as one message; the turn shows in :ClippyTurns', async () => {
    const n = await startNvim(d.env.env);
    await setLines(n, ['not this', 'first selected', 'second selected', 'nor this']);
    const before = submissions(alphaLog).length;
    await n.command('2,3ClippySend alpha');
    await note(n, /^clippy: sent 2 lines to alpha$/);
    await until(() => submissions(alphaLog).length > before, 'alpha received the selection');
    expect(submissions(alphaLog).at(-1)?.text).toBe('first selected\nsecond selected');
    const turn = await c.request(
      'wait_turn',
      { session: 'alpha', after: 'alpha:0', timeout_ms: 10_000 },
      { timeoutMs: 0 },
    );
    const id = turn.turn.turn_id;
    expect(turn.turn.text).toContain('ANSWER: first selected');

    await n.command('ClippyTurns alpha');
    const list = await buffer(n, 'clippy://turns/alpha', (l) => l.length > 1);
    expect(list[0]).toMatch(/^TURN\s+TIME\s+TOOK\s+BYTES\s+PROMPT$/);
    expect(list[1]).toMatch(
      new RegExp(
        `^${id}\\s+\\d\\d:\\d\\d:\\d\\d\\s+\\d+\\.\\ds\\s+${turn.turn.byte_length}\\s+first selected second selected$`,
      ),
    );
    // Enter on a turn opens its text.
    await n.lua(
      'vim.api.nvim_win_set_cursor(0, {2, 0}) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)',
    );
    const text = await buffer(n, `clippy://turn/${id}`);
    expect(text.join('\n')).toBe(turn.turn.text);
  });

  it(':ClippySend without a range sends the whole buffer', async () => {
    const n = await startNvim(d.env.env);
    await setLines(n, ['whole buffer one', 'whole buffer two']);
    const before = submissions(betaLog).length;
    await n.command('ClippySend beta');
    await note(n, /^clippy: sent 2 lines to beta$/);
    await until(() => submissions(betaLog).length > before, 'beta received the buffer');
    expect(submissions(betaLog).at(-1)?.text).toBe('whole buffer one\nwhole buffer two');
    await waitState(c, 'beta', 'idle');
  });

  it(':ClippyAsk: the scratch buffer holds exactly the answer', async () => {
    const n = await startNvim(d.env.env);
    await setLines(n, ['context', 'what is the answer?']);
    await n.command('2ClippyAsk alpha');
    await note(n, /^clippy: alpha answered \(turn \S+\)$/);
    const turn = await latest('alpha');
    expect(turn.prompt).toBe('what is the answer?');
    const lines = await buffer(n, `clippy://turn/${turn.turn_id}`);
    expect(lines.join('\n')).toBe(tuiAnswerText('what is the answer?'));
    // It is the window the user looks at now.
    expect(await n.lua('return vim.api.nvim_buf_get_name(0)')).toBe(
      `clippy://turn/${turn.turn_id}`,
    );
    // The screen's text (alpha runs no hooks): not Markdown.
    expect(await n.lua('return vim.bo.filetype')).toBe('clippy-turn');
  });

  it(':ClippyAsk on an agent that reports its own answer (its hooks): the buffer is its Markdown, as markdown', async () => {
    const answer = ['Here:', '', '```lua', 'print(1)', '```', '', '- one'].join('\n');
    const replies = path.join(d.env.root, 'nvim-md-replies.json');
    fs.writeFileSync(replies, JSON.stringify([answer]));
    await spawnAgent(d, c, 'md', 'claude', 'claude', ['--hooks', '--replies', replies]);
    const n = await startNvim(d.env.env);
    await setLines(n, ['show me code']);
    await n.command('ClippyAsk md');
    await note(n, /^clippy: md answered \(turn \S+\)$/);
    const turn = await latest('md');
    expect(turn.text_source).toBe('agent');
    const lines = await buffer(n, `clippy://turn/${turn.turn_id}`);
    expect(lines.join('\n')).toBe(answer);
    expect(await n.lua('return vim.bo.filetype')).toBe('markdown');
  });

  it(':ClippyRelay puts the latest turn of one session into another', async () => {
    await answered('alpha', 'relay this one');
    const n = await startNvim(d.env.env);
    const from = await latest('alpha');
    const before = submissions(betaLog).length;
    await n.command('ClippyRelay alpha beta');
    await note(
      n,
      new RegExp(`^clippy: relayed ${from.turn_id} \\(\\d+ bytes\\) from alpha to beta$`),
    );
    await until(() => submissions(betaLog).length > before, 'beta received the relay');
    expect(submissions(betaLog).at(-1)).toMatchObject({ text: from.text, pasted: true });
    await waitState(c, 'beta', 'idle');
  });

  it(':ClippyAttach opens the session in a terminal buffer; quitting Neovim leaves it running', async () => {
    // A turn of its own on alpha's screen, to look for in the terminal.
    await answered('alpha', 'show me in a terminal');
    const n = await startNvim(d.env.env);
    await setLines(n, []);
    await n.command('ClippyAttach alpha');
    const clients = async () =>
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'alpha')!;
    await eventually(
      async () => (await clients()).clients === 1,
      async () => `attached (messages: ${JSON.stringify(await n.notes())})`,
    );
    const term = await n.lua<{ buftype: string; session: string; mode: string }>(
      'return { buftype = vim.bo.buftype, session = vim.b.clippy_session, mode = vim.api.nvim_get_mode().mode }',
    );
    expect(term).toEqual({ buftype: 'terminal', session: 'alpha', mode: 't' });
    // The agent's screen is replayed into the terminal: its last answer is on it.
    const answer = 'ANSWER: show me in a terminal';
    const screen = () => n.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)');
    await eventually(
      async () => (await screen()).some((l) => l.includes(answer)),
      async () => `on the screen: ${answer}\n${(await screen()).join('\n')}`,
    );
    await n.dispose();
    nvims.splice(nvims.indexOf(n), 1);
    const alpha = await eventually(async () => {
      const a = await clients();
      return a.clients === 0 && a;
    }, 'the attach client gone');
    expect(alpha.state).not.toBe('exited');
  });

  it('an unknown or exited session, or a missing argument, is a clear error message', async () => {
    const n = await startNvim(d.env.env);
    await setLines(n, ['hello']);
    await n.command('ClippySend ghost');
    expect((await note(n, /ghost/)).msg).toBe("clippy: no session has the ID or name 'ghost'");
    await n.command('ClippyAsk gone');
    expect((await note(n, /gone/)).msg).toMatch(/^clippy: session 'gone' \(\w+\) has exited$/);
    await n.command('ClippyAttach gone');
    await note(n, /^clippy: session 'gone' has exited: there is nothing to attach to$/);
    await n.command('ClippyRelay alpha');
    await note(n, /^clippy: usage: :ClippyRelay \{from\} \{to\}$/);
    await n.command('ClippyTurns nobody');
    await note(n, /^clippy: no session has the ID or name 'nobody'$/);
    for (const x of await n.notes()) expect(x.level).toBe(ERROR);
    expect((await n.notes()).length).toBe(5);
    expect(await n.lua('return vim.v.errmsg')).toBe('');
  });

  /** The number of windows Neovim shows. */
  function windows(n: Nvim): Promise<number> {
    return n.lua<number>('return #vim.api.nvim_list_wins()');
  }

  /** Presses keys as a person would (in the current mode). */
  function press(n: Nvim, keys: string): Promise<unknown> {
    return n.lua(
      'vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), "x", false)',
      keys,
    );
  }

  it('one window per kind of result: a second result replaces the first in its window', async () => {
    await answered('alpha', 'for the windows');
    await answered('beta', 'for the windows too');
    await answered('beta', 'and once more');
    const n = await startNvim(d.env.env);
    await setLines(n, ['what now?']);
    expect(await windows(n)).toBe(1);
    await n.command('ClippySessions');
    await buffer(n, 'clippy://sessions');
    await n.command('ClippySessions');
    expect(await windows(n)).toBe(2);
    await n.command('ClippyTurns alpha');
    await buffer(n, 'clippy://turns/alpha', (l) => l.length > 1);
    await n.command('ClippyTurns beta');
    await buffer(n, 'clippy://turns/beta', (l) => l.length > 1);
    // beta's turns took the turn list's window.
    expect(await windows(n)).toBe(3);
    expect(await n.lua('return vim.api.nvim_buf_get_name(0)')).toBe('clippy://turns/beta');
    // Two turns opened from the list: one window for them.
    await n.lua('vim.api.nvim_win_set_cursor(0, {2, 0})');
    await press(n, '<CR>');
    const first = (await latest('beta')).turn_id;
    await buffer(n, `clippy://turn/${first}`);
    await n.command('ClippyTurns beta');
    await eventually(
      async () => (await n.lua('return vim.api.nvim_buf_get_name(0)')) === 'clippy://turns/beta',
      'the turn list shown again',
    );
    await n.lua('vim.api.nvim_win_set_cursor(0, {3, 0})');
    await press(n, '<CR>');
    await eventually(
      async () =>
        ((await n.lua<string>('return vim.api.nvim_buf_get_name(0)')) ?? '').startsWith(
          'clippy://turn/',
        ) &&
        (await n.lua<string>('return vim.api.nvim_buf_get_name(0)')) !== `clippy://turn/${first}`,
      'the second turn shown',
    );
    expect(await windows(n)).toBe(4);
    // The first turn's buffer went with its window's content: nothing piles up.
    expect(await n.bufferLines(`clippy://turn/${first}`)).toBeNull();
    // Two answers: one answer window.
    await n.command('wincmd t');
    await n.command('ClippyAsk alpha');
    await note(n, /^clippy: alpha answered/);
    expect(await windows(n)).toBe(5);
    await n.command('wincmd t');
    await n.command('ClippyAsk alpha');
    await eventually(
      async () =>
        (await n.notes()).filter((x) => /^clippy: alpha answered/.test(x.msg)).length === 2,
      'the second answer',
    );
    expect(await windows(n)).toBe(5);
    const turn = await latest('alpha');
    expect(await n.lua('return vim.api.nvim_buf_get_name(0)')).toBe(
      `clippy://turn/${turn.turn_id}`,
    );
  });

  it(':ClippyPut puts a turn at the cursor; :ClippyYank into a register', async () => {
    await answered('alpha', 'put me in the code');
    const alpha = await latest('alpha');
    const lines = alpha.text.split('\n');
    const n = await startNvim(d.env.env);
    await setLines(n, ['first', 'second']);
    const text = () => n.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)');
    // By turn ID, below the cursor's line.
    await n.lua('vim.api.nvim_win_set_cursor(0, {1, 0})');
    await n.command(`ClippyPut ${alpha.turn_id}`);
    await note(n, new RegExp(`^clippy: put ${alpha.turn_id} \\(${lines.length} lines\\)$`));
    expect(await text()).toEqual(['first', ...lines, 'second']);
    // The cursor is on its last line.
    expect(await n.lua('return vim.api.nvim_win_get_cursor(0)[1]')).toBe(1 + lines.length);
    // By session (its latest turn), above a given line.
    await n.command('1ClippyPut! alpha');
    await eventually(async () => (await text()).length === 2 + 2 * lines.length, 'the second put');
    expect((await text()).slice(0, lines.length + 1)).toEqual([...lines, 'first']);
    // Into a register, linewise.
    await n.command(`ClippyYank a ${alpha.turn_id}`);
    await note(
      n,
      new RegExp(`^clippy: ${alpha.turn_id} \\(${lines.length} lines\\) is in register a$`),
    );
    expect(await n.lua('return { vim.fn.getreg("a"), vim.fn.getregtype("a") }')).toEqual([
      `${alpha.text}\n`,
      'V',
    ]);
    // Without a turn named: the one shown last (here the answer of an ask).
    await setLines(n, ['ask about this']);
    await n.command('ClippyAsk beta');
    await note(n, /^clippy: beta answered/);
    const answer = await latest('beta');
    await n.command('wincmd p');
    await n.command('ClippyYank');
    await note(n, new RegExp(`^clippy: ${answer.turn_id} .* is in register "$`));
    expect(await n.lua("return vim.fn.getreg('\"')")).toBe(`${answer.text}\n`);
    await n.command('ClippyPut');
    await eventually(async () => (await text()).join('\n').includes(answer.text), 'the answer put');
    // Errors: a read-only buffer, an unknown turn; nothing else happens.
    await n.command(`buffer clippy://turn/${answer.turn_id}`);
    await n.command('ClippyPut alpha');
    await note(
      n,
      new RegExp(`^clippy: cannot put into clippy://turn/${answer.turn_id}: it is not modifiable$`),
    );
    await n.command('enew');
    await n.command('ClippyPut alpha:999');
    await note(n, /^clippy: no stored turn has the ID 'alpha:999'/);
    expect(await text()).toEqual(['']);
  });

  it(':ClippyWait shows the next turn, whoever asked for it', async () => {
    const n = await startNvim(d.env.env);
    await n.command('ClippyWait beta');
    await note(n, /^clippy: waiting for the next turn of beta$/);
    const before = (await latest('beta')).turn_id;
    // The answer comes from a prompt typed elsewhere (the test's client, as a terminal would).
    await c.request('send', { session: 'beta', text: 'typed in a terminal', enter: true });
    const m = await note(n, /^clippy: beta finished a turn/);
    const turn = await latest('beta');
    expect(turn.turn_id).not.toBe(before);
    expect(m.msg).toBe(`clippy: beta finished a turn (${turn.turn_id})`);
    expect((await buffer(n, `clippy://turn/${turn.turn_id}`)).join('\n')).toBe(turn.text);
  });

  it(':ClippyCapture takes a turn into the relay buffer; :ClippyPaste types it into a session', async () => {
    await answered('alpha', 'capture me');
    const turn = await latest('alpha');
    const n = await startNvim(d.env.env);
    await n.command('ClippyCapture alpha');
    await note(
      n,
      new RegExp(`^clippy: captured ${turn.turn_id} \\(\\d+ bytes of text, \\d+ raw\\)`),
    );
    const before = submissions(betaLog).length;
    await n.command('ClippyPaste beta');
    await note(n, new RegExp(`^clippy: pasted ${turn.turn_id} \\(\\d+ bytes\\) into beta$`));
    await until(() => submissions(betaLog).length > before, 'beta received the paste');
    expect(submissions(betaLog).at(-1)).toMatchObject({ text: turn.text, pasted: true });
    await waitState(c, 'beta', 'idle');
    // In a turn's buffer, the turn it shows.
    const older = `alpha:${turn.seq - 1}`;
    await n.command(`ClippyTurns alpha`);
    await buffer(n, 'clippy://turns/alpha', (l) => l.length > 2);
    await n.lua('vim.api.nvim_win_set_cursor(0, {3, 0})');
    await press(n, '<CR>');
    await eventually(
      async () => (await n.lua('return vim.b.clippy_turn_id')) != null,
      'the older turn shown',
    );
    const shown = await n.lua<string>('return vim.b.clippy_turn_id');
    expect(shown.split(':')[1]).toBe(older.split(':')[1]);
    await n.command('ClippyCapture');
    await note(n, new RegExp(`^clippy: captured ${shown} `));
  });

  it(':ClippyNew starts a session in the current directory and opens it; :ClippyKill, :ClippyRemove end it', async () => {
    const n = await startNvim(d.env.env);
    const cwd = await n.lua<string>('return vim.fn.getcwd()');
    const log = path.join(d.env.root, 'fresh.log');
    const { command, args } = agentCommand('claude', ['--log', log]);
    // The daemon's presets complete after --preset.
    expect(await n.lua('return vim.fn.getcompletion("ClippyNew --preset cl", "cmdline")')).toEqual([
      'claude',
    ]);
    await n.command(`ClippyNew --preset claude --name fresh ${command} ${args.join(' ')}`);
    await note(n, /^clippy: started fresh \(\w+\)$/);
    const fresh = async () =>
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'fresh');
    expect(await fresh()).toMatchObject({ cwd, preset: 'claude', command, args });
    // Opened in the terminal window, as `clippy new` attaches.
    await eventually(async () => (await fresh())?.clients === 1, 'attached');
    expect(await n.lua('return { vim.bo.buftype, vim.b.clippy_session }')).toEqual([
      'terminal',
      'fresh',
    ]);
    await waitState(c, 'fresh', 'idle');
    await answered('fresh', 'before the end');

    // With !, started and left detached; an unknown preset is the CLI's message.
    await n.command('ClippyNew! --name quiet sh');
    await note(n, /^clippy: started quiet /);
    expect(
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'quiet')?.clients,
    ).toBe(0);
    await n.command('ClippyNew --preset nosuch sh');
    await note(n, /^clippy: could not start the session: unknown preset "nosuch"; known presets: /);

    await n.command('ClippyKill fresh');
    await note(n, /^clippy: killed fresh; its 1 turn stay readable until :ClippyRemove fresh$/);
    await waitState(c, 'fresh', 'exited');
    await n.command('ClippyKill fresh');
    await note(n, /^clippy: session 'fresh' has already exited: :ClippyRemove fresh forgets it$/);
    await n.command('ClippyRemove quiet');
    await note(n, /^clippy: session 'quiet' is still running; kill it first/);
    await n.command('ClippyRemove fresh');
    await note(n, /^clippy: removed fresh$/);
    expect(await fresh()).toBeUndefined();
    await c.request('kill', { session: 'quiet' });
  });

  it(':ClippyAttach: detaching takes the terminal buffer and its window away; the session runs on', async () => {
    const n = await startNvim(d.env.env);
    await n.command('ClippyAttach alpha');
    const alpha = async () =>
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'alpha')!;
    await eventually(async () => (await alpha()).clients === 1, 'attached');
    expect(await windows(n)).toBe(2);
    // Attaching again shows the same terminal, not a second one.
    await n.command('wincmd t');
    await n.command('ClippyAttach alpha');
    await eventually(async () => (await n.lua('return vim.bo.buftype')) === 'terminal', 'shown');
    expect(await windows(n)).toBe(2);
    expect((await alpha()).clients).toBe(1);
    // Ctrl-] in the terminal: `clippy attach` detaches and exits 0.
    await n.lua('vim.api.nvim_chan_send(vim.bo.channel, "\\x1d")');
    await note(n, /^clippy: detached from alpha \(it keeps running: :ClippyAttach alpha\)$/);
    expect(await windows(n)).toBe(1);
    const names = await n.lua<string[]>(
      'return vim.tbl_map(function(b) return vim.api.nvim_buf_get_name(b) .. "|" .. vim.bo[b].buftype end, vim.api.nvim_list_bufs())',
    );
    expect(names.filter((b) => b.endsWith('|terminal'))).toEqual([]);
    await eventually(async () => (await alpha()).clients === 0, 'detached');
    expect((await alpha()).state).not.toBe('exited');
  });

  it('the session list shows UNREAD and COST only when the daemon says them', async () => {
    const n = await startNvim(d.env.env);
    const rows = (sessions: object[]) =>
      n.lua<string[]>("return require('clippy.commands').session_lines(...)", sessions);
    const base = { state: 'idle', turn_count: 2, clients: 0, command: 'claude', args: [] };
    expect(await rows([{ name: 'a', ...base }])).toEqual([
      'NAME  STATE  TURNS  CLIENTS  COMMAND',
      'a     idle   2      0        claude',
    ]);
    expect(
      await rows([
        { name: 'a', ...base, unread: 1, cost_usd: 0.5 },
        { name: 'b', ...base, state: 'busy' },
      ]),
    ).toEqual([
      'NAME  STATE  TURNS  UNREAD  COST   CLIENTS  COMMAND',
      'a     idle   2      1       $0.50  0        claude',
      'b     busy   2      -       -      0        claude',
    ]);
  });

  it("shows the daemon's notification of a finished turn with vim.notify, once; the list marks it unread", async () => {
    const n = await startNvim(d.env.env);
    // Neovim told the daemon it is there (setup() starts that).
    await eventually(async () => {
      const { clients } = await c.request('notify_settings', {});
      return clients.some((x) => x.kind === 'editor');
    }, 'Neovim known to the daemon');
    await c.request('subscribe', { events: ['turn_completed'] });
    const done = new Promise<string>((resolve) => {
      const off = c.on('turn_completed', (p) => {
        if (p.name !== 'alpha') return;
        off();
        resolve(p.turn.turn_id);
      });
    });
    await c.request('send', { session: 'alpha', text: 'tell me', enter: true });
    const id = await done;
    const shown = await note(n, /^clippy: alpha: turn finished: /);
    expect(shown.msg).toContain('ANSWER: tell me');
    expect((await n.notes()).filter((x) => /turn finished/.test(x.msg))).toHaveLength(1);
    const rows = await n.lua<string[]>(
      "return require('clippy.commands').session_lines(...)",
      (await c.request('list_sessions', {})).sessions,
    );
    expect(rows[0]).toContain('UNREAD');
    expect(rows.find((r) => r.startsWith('alpha '))).toMatch(/^alpha\s+idle\s+\d+\s+1\s/);
    await c.request('get_turn', { turn_id: id, read: true });
  });

  // Last of this group: it adds sessions the tests above do not expect.
  it("the :ClippySessions buffer follows the daemon's pushes: new sessions, busy, idle, exited", async () => {
    const n = await startNvim(d.env.env);
    await n.command('ClippySessions');
    const row = (lines: string[], name: string) =>
      lines
        .find((l) => l.startsWith(`${name} `))
        ?.split(/\s+/)
        .slice(0, 3);
    await buffer(n, 'clippy://sessions', (l) => row(l, 'alpha') !== undefined);
    await spawnAgent(d, c, 'slowpoke', 'slow', 'aider');
    await buffer(
      n,
      'clippy://sessions',
      (l) => row(l, 'slowpoke')?.join(' ') === 'slowpoke idle 0',
    );
    await c.request('send', { session: 'slowpoke', text: 'take your time', enter: true });
    // The slow agent answers in pieces over seconds: the list shows it busy, then idle with a turn.
    await buffer(
      n,
      'clippy://sessions',
      (l) => row(l, 'slowpoke')?.join(' ') === 'slowpoke busy 0',
    );
    await buffer(
      n,
      'clippy://sessions',
      (l) => row(l, 'slowpoke')?.join(' ') === 'slowpoke idle 1',
    );
    await c.request('kill', { session: 'slowpoke' });
    await buffer(n, 'clippy://sessions', (l) => row(l, 'slowpoke')?.[1] === 'exited');
    // Nothing asked Neovim to re-run the command: the one list buffer was updated in place.
    expect(await n.lua('return #vim.api.nvim_list_bufs()')).toBe(2);
  });

  it('vim.fn.msgpackdump/msgpackparse (for a Neovim without vim.mpack) speak the same frames', async () => {
    const n = await startNvim(d.env.env);
    await n.lua("require('clippy.codec').use('fn') require('clippy.client').disconnect()");
    await setLines(n, ['codec check ünïcödé']);
    await n.command('ClippyAsk beta');
    await note(n, /^clippy: beta answered/);
    const turn = await latest('beta');
    expect(turn.prompt).toBe('codec check ünïcödé');
    expect((await buffer(n, `clippy://turn/${turn.turn_id}`)).join('\n')).toBe(turn.text);
    expect(await n.lua("return require('clippy.codec').name")).toBe('vim.fn.msgpackdump');
  });
});

describe.skipIf(!hasNvim)('without a working daemon', { timeout: E2E_TIMEOUT_MS }, () => {
  const envs: DaemonEnv[] = [];
  const servers: net.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
    for (const e of envs.splice(0)) await e.dispose();
  });
  function freshEnv(): DaemonEnv {
    const e = new DaemonEnv();
    envs.push(e);
    return e;
  }

  it('no daemon and autostart off: says none is running, where', async () => {
    const e = freshEnv();
    const n = await startNvim(e.env, '{ autostart = false }');
    await n.command('ClippySessions');
    const m = await note(n, /clippy:/);
    expect(m).toEqual({
      msg: `clippy: no clippy daemon is running (socket ${e.socket})`,
      level: ERROR,
    });
    // Completion just has nothing to offer.
    expect(await n.lua('return vim.fn.getcompletion("ClippySend ", "cmdline")')).toEqual([]);
  });

  it('no daemon and no clippy to start one: says both', async () => {
    const e = freshEnv();
    const n = await startNvim(e.env, "{ clippy_cmd = 'no-such-clippy' }");
    await n.command('ClippySessions');
    const m = await note(n, /clippy:/);
    expect(m.msg).toBe(
      `clippy: no clippy daemon is running (socket ${e.socket}) and it cannot be started: ` +
        "`no-such-clippy` was not found: install clippy (npm) or set clippy_cmd in require('clippy').setup({ clippy_cmd = ... })",
    );
  });

  it('no daemon: starts one as the CLI does, then answers', async () => {
    const e = freshEnv();
    const n = await startNvim(e.env);
    await n.command('ClippySessions');
    const lines = await buffer(n, 'clippy://sessions');
    expect(lines).toEqual([
      'NAME  STATE  TURNS  CLIENTS  COMMAND',
      '(no sessions: start one with `clippy new -- <command>`)',
    ]);
    const pid = await e.discoverPid();
    expect(pid).toBeGreaterThan(0);
    expect(await n.lua("return require('clippy.client').broker_pid()")).toBe(pid);
  });

  it('a daemon of another protocol version: says so and what to do', async () => {
    const e = freshEnv();
    // The real daemon as the previous protocol version's release would run it.
    const old = await TestDaemon.start({
      env: e,
      bin: otherRelease(e.root, { protocolVersion: PROTOCOL_VERSION - 1 }),
    });
    const n = await startNvim(e.env);
    await n.command('ClippySessions');
    const m = await note(n, /clippy:/);
    expect(m.level).toBe(ERROR);
    expect(m.msg).toBe(
      `clippy: the running clippy daemon (pid ${old.pid}) at ${e.socket} speaks protocol version ` +
        `${PROTOCOL_VERSION - 1}, this plugin speaks ${PROTOCOL_VERSION}: it was started by another ` +
        'version of clippy. Run `clippy daemon restart --force` to replace it (its sessions end then), ' +
        'or use a plugin of its version.',
    );
  });

  it('the daemon goes away and another starts: the list says so, the next command reconnects', async () => {
    const e = freshEnv();
    const first = await TestDaemon.start({ env: e });
    const n = await startNvim(e.env, '{ autostart = false }');
    await n.command('ClippySessions');
    await buffer(n, 'clippy://sessions');
    const c1 = await first.connect();
    await c1.request('shutdown', {}).catch(() => {});
    await c1.close();
    await first.exited;
    const lines = await buffer(n, 'clippy://sessions', (l) => l.length === 3);
    expect(lines[2]).toBe(
      '(not updated any more: the clippy daemon closed the connection; press r to reconnect)',
    );
    await n.command('ClippySend x');
    await note(n, /^clippy: no clippy daemon is running/);
    const second = await TestDaemon.start({ env: e });
    const c2 = await second.connect();
    await c2.request('spawn', { command: 'sh', args: [], name: 'again', cwd: e.root });
    await c2.close();
    // `r` in the list reconnects, and the list follows the new daemon.
    await n.lua('vim.api.nvim_feedkeys("r", "x", false)');
    await buffer(n, 'clippy://sessions', (l) => l.length === 2 && l[1]!.startsWith('again '));
    expect(await n.lua("return require('clippy.client').broker_pid()")).toBe(second.pid);
  });

  it('a socket that never answers: a timeout message, not a hang', async () => {
    const e = freshEnv();
    fs.mkdirSync(path.dirname(e.socket), { mode: 0o700 });
    const held: net.Socket[] = [];
    let said = '';
    let closed = false;
    const server = net.createServer((s) => {
      held.push(s);
      s.on('data', (d) => (said += d.toString('latin1')));
      s.on('close', () => (closed = true));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(e.socket, r));
    const n = await startNvim(e.env);
    await n.command('ClippySessions');
    // It asked (a hello on an open connection) and waits for the answer, saying nothing yet;
    // the editor stays usable while it waits.
    await until(() => said.includes('hello'), 'the hello');
    expect(await n.lua('return 1 + 1')).toBe(2);
    expect(await n.notes()).toEqual([]);
    expect(closed).toBe(false);
    // ...until its hello bound, which the message names; then it lets go of the connection.
    const m = await note(n, /clippy:/);
    expect(m.msg).toBe(
      `clippy: the clippy daemon at ${e.socket} did not answer hello within 5000 ms`,
    );
    await until(() => closed, 'the connection closed by the plugin');
    for (const s of held) s.destroy();
  });
});
