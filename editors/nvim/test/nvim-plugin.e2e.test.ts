import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { PROTOCOL_VERSION } from '@clippy/protocol';
import { spawnAgent, submissions, tuiAnswerText, waitState } from '@clippy/testkit/agents/harness';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { otherRelease } from '@clippy/testkit/other-release';
import { installed } from '@clippy/testkit/installed';
import { Nvim, nvimPluginDir } from '@clippy/testkit/nvim';
import { bins } from '@clippy/testkit/paths';
import { until } from '@clippy/testkit/until';

// The Neovim plugin (editors/nvim) in a real headless Neovim, against the real daemon and
// fake agents in real PTYs: what a person sees in the editor (buffers, messages) and what the
// agents received (their own logs).

/** Per test: Neovim, agents and sometimes a daemon start and stop on a loaded 2-core box. */
const E2E_TIMEOUT_MS = 60_000;
/** How long a result the plugin shows asynchronously (a buffer, a message) may take. */
const SHOWN_TIMEOUT_MS = 15_000;

const hasNvim = installed('nvim');
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

/** Waits for a vim.notify message matching `re` and returns it. */
async function note(n: Nvim, re: RegExp): Promise<{ msg: string; level: number }> {
  let found: { msg: string; level: number } | undefined;
  const deadline = Date.now() + SHOWN_TIMEOUT_MS;
  while (!found) {
    found = (await n.notes()).find((x) => re.test(x.msg));
    if (found) break;
    if (Date.now() > deadline) {
      throw new Error(`no message matching ${re}; got: ${JSON.stringify(await n.notes())}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return found;
}

/** Waits until the buffer named `name` exists and satisfies `ok`; returns its lines. */
async function buffer(n: Nvim, name: string, ok: (l: string[]) => boolean = () => true) {
  let lines: string[] | null = null;
  const deadline = Date.now() + SHOWN_TIMEOUT_MS;
  for (;;) {
    lines = await n.bufferLines(name);
    if (lines && ok(lines)) return lines;
    if (Date.now() > deadline) {
      throw new Error(
        `buffer ${name}: ${JSON.stringify(lines)}; messages: ${JSON.stringify(await n.notes())}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
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

it.skipIf(hasNvim)(
  'nvim: not installed here (.ci/run installs it: apt-get install neovim)',
  () => {},
);

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
    const deadline = Date.now() + SHOWN_TIMEOUT_MS;
    const clients = async () =>
      (await c.request('list_sessions', {})).sessions.find((s) => s.name === 'alpha')!;
    while ((await clients()).clients !== 1) {
      if (Date.now() > deadline)
        throw new Error(`never attached: ${JSON.stringify(await n.notes())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const term = await n.lua<{ buftype: string; session: string; mode: string }>(
      'return { buftype = vim.bo.buftype, session = vim.b.clippy_session, mode = vim.api.nvim_get_mode().mode }',
    );
    expect(term).toEqual({ buftype: 'terminal', session: 'alpha', mode: 't' });
    // The agent's screen is replayed into the terminal: its last answer is on it.
    const answer = 'ANSWER: show me in a terminal';
    const screen = () => n.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)');
    while (!(await screen()).some((l) => l.includes(answer))) {
      if (Date.now() > deadline)
        throw new Error(`not on the screen: ${answer}\n${(await screen()).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await n.dispose();
    nvims.splice(nvims.indexOf(n), 1);
    for (;;) {
      const alpha = await clients();
      if (alpha.clients === 0) {
        expect(alpha.state).not.toBe('exited');
        break;
      }
      if (Date.now() > deadline + SHOWN_TIMEOUT_MS)
        throw new Error('attach client never went away');
      await new Promise((r) => setTimeout(r, 50));
    }
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
    const server = net.createServer((s) => held.push(s));
    servers.push(server);
    await new Promise<void>((r) => server.listen(e.socket, r));
    const n = await startNvim(e.env);
    const started = Date.now();
    await n.command('ClippySessions');
    // The editor stays usable while it waits.
    expect(await n.lua('return 1 + 1')).toBe(2);
    const m = await note(n, /clippy:/);
    expect(m.msg).toBe(
      `clippy: the clippy daemon at ${e.socket} did not answer hello within 5000 ms`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    for (const s of held) s.destroy();
  });
});
