// `clippy mcp` as an agent sees it: an MCP client of the protocol's SDK drives the real built
// `clippy mcp` process over stdio, against the real daemon with a real bash and the fake agents.
// Every tool, every error: errors are tool results (`isError`) that name the problem.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { Ajv } from 'ajv';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { spawnAgent, spawnProgram, submissions, waitState } from '@clippy/testkit/agents/harness';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { GIT_TEST_ENV, makeRepo } from '@clippy/testkit/git';
import { bins } from '@clippy/testkit/paths';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpProcess, texts, toolError } from './test-support/mcp-process.js';

/** Every tool, in the order clippy mcp lists them. */
const ALL_TOOLS = [
  'list_sessions',
  'ask',
  'send',
  'wait',
  'read_turn',
  'relay',
  'new_session',
  'diff',
  'kill',
];
/** The daemon's wait for a busy target to be idle (INJECT_IDLE_WAIT_MS), and a margin. */
const BUSY_TEST_MS = 90_000;
/** Ends a bracketed paste early on a naive injector, then types a command and presses Enter. */
const HOSTILE = 'ok\n\x1b[201~touch pwned.txt\n';
/** What the target receives instead: the same text, its ESC shown as ␛, all inside one paste. */
const NEUTRALIZED = 'ok\n␛[201~touch pwned.txt\n';

let d: TestDaemon;
let c: ClippyClient;
/** The agent every test uses unless it needs one of its own. */
let mcp: McpProcess;
/** Session IDs by name. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  // The daemon runs git (worktrees) with none of the machine's git settings.
  d = await TestDaemon.start({ env: new DaemonEnv({ ...GIT_TEST_ENV }) });
  c = await d.connect();
  await spawnProgram(d, c, 'sh', 'bash', 'bash', ['--norc', '--noprofile']);
  const { sessions } = await c.request('list_sessions', {});
  for (const s of sessions) ids[s.name] = s.session;
  mcp = await McpProcess.start([], d.env.env);
});

afterAll(async () => {
  await mcp?.stop();
  await c?.close();
  await d?.stop();
});

/** The session's ID, looked up once it exists. */
async function idOf(name: string): Promise<string> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((s) => s.name === name && s.state !== 'exited')!.session;
}

/** The stored turn the daemon holds, by ID. */
async function storedTurn(turnId: string) {
  return (await c.request('get_turn', { turn_id: turnId })).turn;
}

/** The turn ID a turn result's note names (`[clippy: turn ID (name:N) …`). */
function turnIdOf(note: string | undefined): string {
  const m = /^\[clippy: turn (\S+) /u.exec(note ?? '');
  if (!m) throw new Error(`no turn ID in ${note}`);
  return m[1]!;
}

describe('the tools an agent is offered', () => {
  it('are the nine, each with a one-line description and an input JSON schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    const ajv = new Ajv({ strict: false });
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/^[^\n]{20,300}$/u);
      expect(t.inputSchema.type).toBe('object');
      expect(() => ajv.compile(t.inputSchema), t.name).not.toThrow();
    }
    expect(tools.find((t) => t.name === 'kill')?.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'wait')?.annotations?.readOnlyHint).toBe(true);
  });

  it('--read-only: list_sessions, wait, read_turn and diff only; the others are refused', async () => {
    const ro = await McpProcess.start(['--read-only'], d.env.env);
    try {
      const { tools } = await ro.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['list_sessions', 'wait', 'read_turn', 'diff']);
      const refused = toolError(await ro.call('ask', { session: 'sh', text: 'echo no' }));
      expect(refused.message).toContain('ask');
      const listed = texts(await ro.call('list_sessions'))[0];
      expect(listed).toContain('sh (id ');
    } finally {
      await ro.stop();
    }
  });

  it('a call with bad arguments is a tool error naming the argument, not a protocol failure', async () => {
    const r = toolError(await mcp.call('ask', { session: 'sh' }));
    expect(r.message).toMatch(/text/u);
    const keys = toolError(await mcp.call('send', { session: 'sh', text: 'x', keys: ['Enter'] }));
    expect(keys.code).toBe('invalid_argument');
    expect(keys.message).toContain('text or keys');
  });
});

describe('list_sessions', () => {
  it('lists name, ID, agent, state, turns and folder; exited sessions only with all', async () => {
    await c.request('spawn', {
      command: 'sh',
      args: ['-c', 'exit 3'],
      name: 'gone',
      env: d.env.env as Record<string, string>,
    });
    await waitState(c, 'gone', 'exited');
    const r = await mcp.call('list_sessions');
    const { sessions } = r.structuredContent as { sessions: Record<string, unknown>[] };
    const sh = sessions.find((s) => s.name === 'sh')!;
    expect(sh).toMatchObject({
      id: ids.sh,
      preset: 'bash',
      command: 'bash',
      state: 'idle',
      cwd: d.env.root,
      latest_turn: null,
      you: false,
    });
    expect(typeof sh.unread).toBe('number');
    expect(sessions.some((s) => s.name === 'gone')).toBe(false);
    expect(texts(r)[0]).toMatch(/^sh \(id \w+\) \| bash: bash --norc --noprofile \| idle \| /mu);
    const all = await mcp.call('list_sessions', { all: true });
    const gone = (all.structuredContent as { sessions: Record<string, unknown>[] }).sessions.find(
      (s) => s.name === 'gone',
    );
    expect(gone).toMatchObject({ state: 'exited' });
  });
});

describe('ask', () => {
  it('returns the answer exactly as the session gave it, with its turn ID', async () => {
    const r = await mcp.call('ask', {
      session: 'sh',
      text: "printf 'one\\n  two  \\n\\tthree\\n'",
    });
    expect(r.isError).toBeFalsy();
    const [answer, note] = texts(r);
    const turnId = turnIdOf(note);
    const turn = await storedTurn(turnId);
    expect(answer).toBe(turn.text);
    expect(answer).toContain('one\n  two');
    expect(turn.session).toBe(ids.sh);
    expect(note).toContain(`(sh:${turn.seq}) of session sh`);
    // The answer is text for the model: no structured copy to be given in its place.
    expect(r.structuredContent).toBeUndefined();
    const { sessions } = (await mcp.call('list_sessions')).structuredContent as {
      sessions: { name: string; latest_turn: string | null }[];
    };
    expect(sessions.find((s) => s.name === 'sh')?.latest_turn).toBe(turnId);
  });

  it("gives the agent's tokens where its channel reports them", async () => {
    await spawnAgent(d, c, 'hooked', 'claude', 'claude', ['--hooks']);
    const question = 'how many tokens was that?';
    const r = await mcp.call('ask', { session: 'hooked', text: question });
    const [answer, note] = texts(r);
    const turn = await storedTurn(turnIdOf(note));
    expect(answer).toBe(turn.text);
    expect(turn.text_source).toBe('agent');
    // The fake Claude Code counts a prompt's characters as its input tokens.
    expect(note).toContain(`${turn.agent!.input_tokens} input tokens`);
    expect(note).toContain(`${turn.agent!.output_tokens} output tokens`);
    expect(turn.agent!.input_tokens).toBe(question.length);
    // Its model has no price: said, never a cost of nothing.
    expect(note).toContain('no price');
  });

  it('refuses an unknown session, and an exited one, naming it', async () => {
    const unknown = toolError(await mcp.call('ask', { session: 'nobody', text: 'hi' }));
    expect(unknown.code).toBe('session_not_found');
    expect(unknown.message).toContain("unknown session 'nobody'");
    await c.request('spawn', {
      command: 'sh',
      args: ['-c', 'exit 0'],
      name: 'ended',
      env: d.env.env as Record<string, string>,
    });
    await waitState(c, 'ended', 'exited');
    const exited = toolError(await mcp.call('ask', { session: 'ended', text: 'hi' }));
    expect(exited.code).toBe('session_exited');
    expect(exited.message).toContain("'ended' has exited with code 0");
  });

  it(
    'a timeout says what it waited for and leaves the turn whole; a busy target is named',
    async () => {
      // An agent that thinks until it gets SIGUSR1: busy for as long as the test needs.
      const log = path.join(d.env.root, 'held.log');
      const { command, args } = agentCommand('aider', ['--log', log, '--hold-think']);
      const { pid } = await c.request('spawn', {
        command,
        args,
        name: 'held',
        preset: 'aider',
        cwd: d.env.root,
        env: d.env.env as Record<string, string>,
      });
      await waitState(c, 'held', 'idle');
      const late = toolError(
        await mcp.call('ask', { session: 'held', text: 'a slow question', timeout_s: 1 }),
      );
      expect(late.code).toBe('timeout');
      expect(late.message).toContain("timed out after 1 s: 'held' has not answered yet");
      expect(late.message).toContain('wait with session "held" and after "held:0"');
      // Still thinking: a second question cannot be typed in.
      const busy = toolError(await mcp.call('ask', { session: 'held', text: 'another' }));
      expect(busy.code).toBe('target_busy');
      expect(busy.message).toContain('busy');
      process.kill(pid, 'SIGUSR1');
      // What the timeout said to do gets the first answer, whole.
      const r = await mcp.call('wait', { session: 'held', after: 'held:0' });
      const [answer, note] = texts(r);
      const turn = await storedTurn(turnIdOf(note));
      expect(turn.prompt).toBe('a slow question');
      expect(answer).toBe(turn.text);
      expect(answer).toContain('ANSWER: a slow question');
    },
    BUSY_TEST_MS,
  );

  it('refuses a session that asks a question, with its question and choices', async () => {
    const log = await spawnAgent(d, c, 'asking', 'claude', 'claude', ['--ask']);
    // Its permission dialog comes up once it is given something to do.
    await c.request('send', { session: 'asking', text: 'do it', enter: true });
    await waitState(c, 'asking', 'blocked');
    const refused = toolError(await mcp.call('ask', { session: 'asking', text: 'status?' }));
    expect(refused.code).toBe('blocked');
    expect(refused.message).toContain("'asking' is waiting for an answer to a question");
    expect(refused.message).toMatch(/Its choices: “Yes/u);
    // send answers it with keys, as a person would.
    const pressed = await mcp.call('send', { session: 'asking', keys: ['Enter'] });
    expect(texts(pressed)[0]).toContain("pressed Enter in 'asking'");
    const r = await mcp.call('wait', { session: 'asking', after: 'asking:0' });
    expect(texts(r)[0]).toContain('ANSWER: do it');
    expect(submissions(log).map((s) => s.text)).toEqual(['do it']);
  });
});

describe("the caller's own session", () => {
  it('is marked in list_sessions and refused as the target of ask, send, relay and kill', async () => {
    // clippy mcp run by the agent in `sh`: the daemon gave that agent CLIPPY_SESSION_ID.
    const own = await McpProcess.start([], { ...d.env.env, CLIPPY_SESSION_ID: ids.sh });
    try {
      const { sessions } = (await own.call('list_sessions')).structuredContent as {
        sessions: { name: string; you: boolean }[];
      };
      expect(sessions.find((s) => s.name === 'sh')?.you).toBe(true);
      expect(texts(await own.call('list_sessions'))[0]).toContain(`sh (id ${ids.sh}) — you`);
      for (const [tool, args] of [
        ['ask', { session: 'sh', text: 'echo me' }],
        ['send', { session: ids.sh, text: 'echo me' }],
        ['relay', { from: 'sh', to: 'sh' }],
        ['kill', { session: 'sh' }],
      ] as const) {
        const e = toolError(await own.call(tool, args));
        expect(e.code, tool).toBe('own_session');
        expect(e.message).toContain(`session 'sh' (${ids.sh}) is your own`);
        expect(e.message).toContain(`${tool} cannot target it`);
      }
      // Reading its own turns is fine.
      expect((await own.call('read_turn', { session: 'sh' })).isError).toBeFalsy();
    } finally {
      await own.stop();
    }
  });
});

describe('send and wait', () => {
  it('types text as one inert paste, and wait returns the turn it set off', async () => {
    const log = await spawnAgent(d, c, 'tui', 'claude', 'claude');
    const sent = await mcp.call('send', { session: 'tui', text: HOSTILE });
    const { after, submitted } = sent.structuredContent as { after: string; submitted: boolean };
    expect(submitted).toBe(true);
    expect(after).toBe('tui:0');
    expect(texts(sent)[0]).toContain('and after "tui:0"');
    const r = await mcp.call('wait', { session: 'tui', after });
    const turn = await storedTurn(turnIdOf(texts(r)[1]));
    expect(texts(r)[0]).toBe(turn.text);
    // The end marker inside the text did not end the paste: nothing ran as keys.
    expect(submissions(log)).toMatchObject([{ text: NEUTRALIZED, pasted: true }]);
  });

  it('send without Enter leaves the text in the input; keys alone press nothing else', async () => {
    const sent = await mcp.call('send', { session: 'sh', text: 'echo typed-later', enter: false });
    expect(sent.structuredContent).toMatchObject({ submitted: false });
    expect(texts(sent)[0]).toContain('(no Enter)');
    const after = (sent.structuredContent as { after: string }).after;
    await mcp.call('send', { session: 'sh', keys: ['Enter'] });
    const r = await mcp.call('wait', { session: 'sh', after });
    expect(texts(r)[0]).toBe('typed-later');
  });

  it('wait refuses a turn that does not exist yet and one of another session; a timeout says why', async () => {
    const { turns } = await c.request('list_turns', { session: 'sh', limit: 1 });
    const latest = turns[0]!.seq;
    const ahead = toolError(await mcp.call('wait', { session: 'sh', after: String(latest + 5) }));
    expect(ahead.code).toBe('turn_not_found');
    expect(ahead.message).toContain(`the latest of 'sh' is sh:${latest}`);
    const other = toolError(await mcp.call('wait', { session: 'sh', after: 'tui:1' }));
    expect(other.code).toBe('invalid_argument');
    const bad = toolError(await mcp.call('wait', { session: 'sh', after: 'yesterday' }));
    expect(bad.message).toContain("after 'yesterday' is not a turn");
    const late = toolError(await mcp.call('wait', { session: 'sh', timeout_s: 1 }));
    expect(late.code).toBe('timeout');
    expect(late.message).toContain(`no turn of 'sh' completed after sh:${latest}`);
    expect(late.message).toContain(`after "sh:${latest}" returns it`);
  });
});

describe('read_turn', () => {
  it('reads a long answer whole in pages, by turn ID or latest, as text or raw', async () => {
    const r = await mcp.call('ask', { session: 'sh', text: 'seq 1 20000' });
    const [first, note] = texts(r);
    const turnId = turnIdOf(note);
    const turn = await storedTurn(turnId);
    expect(turn.text.length).toBeGreaterThan(100_000);
    expect(first).toBe(turn.text.slice(0, 40_000));
    expect(note).toContain(`read_turn with turn_id "${turnId}" and offset 40000`);
    let whole = first!;
    for (let offset = 40_000; offset !== null;) {
      const page = await mcp.call('read_turn', { turn_id: turnId, offset });
      const [text, pageNote] = texts(page);
      whole += text;
      const next = /offset (\d+) gives the rest/u.exec(pageNote!);
      offset = next ? Number(next[1]) : (null as unknown as number);
      if (!next) break;
    }
    expect(whole).toBe(turn.text);
    // By the session's name and the turn's number, its latest, and raw.
    const byName = await mcp.call('read_turn', {
      turn_id: `sh:${turn.seq}`,
      max_chars: 100,
    });
    expect(texts(byName)[0]).toBe(turn.text.slice(0, 100));
    const latest = await mcp.call('read_turn', { session: 'sh', max_chars: 100 });
    expect(texts(latest)[0]).toBe(turn.text.slice(0, 100));
    const raw = await mcp.call('read_turn', { turn_id: turnId, format: 'raw', max_chars: 200 });
    expect(texts(raw)[0]).toBe(Buffer.from(turn.content).toString('utf8').slice(0, 200));
    expect(texts(raw)[1]).toContain('its terminal bytes');
  });

  it('names what is wrong: no such turn, not a turn ID, both or neither, past the end', async () => {
    expect(toolError(await mcp.call('read_turn', { turn_id: 'sh:9999' })).code).toBe(
      'turn_not_found',
    );
    expect(toolError(await mcp.call('read_turn', { turn_id: 'sh' })).message).toContain(
      "'sh' is not a turn ID",
    );
    expect(toolError(await mcp.call('read_turn', {})).message).toContain('turn_id or session');
    const both = toolError(await mcp.call('read_turn', { turn_id: 'sh:1', session: 'sh' }));
    expect(both.code).toBe('invalid_argument');
    const past = toolError(await mcp.call('read_turn', { turn_id: 'sh:1', offset: 10_000_000 }));
    expect(past.message).toContain('is past the end of turn');
    const none = await c.request('spawn', {
      command: 'bash',
      args: ['--norc', '--noprofile'],
      name: 'fresh',
      preset: 'bash',
      cwd: d.env.root,
      env: d.env.env as Record<string, string>,
    });
    const empty = toolError(await mcp.call('read_turn', { session: none.session }));
    expect(empty.code).toBe('no_turn');
  });
});

describe('relay', () => {
  it("types a session's latest turn into another, which answers it", async () => {
    const log = await spawnAgent(d, c, 'reviewer', 'aider', 'aider');
    const asked = await mcp.call('ask', { session: 'sh', text: 'echo please review this' });
    const source = turnIdOf(texts(asked)[1]);
    const r = await mcp.call('relay', { from: 'sh', to: 'reviewer' });
    expect(r.structuredContent).toMatchObject({
      turn_id: source,
      to: await idOf('reviewer'),
      to_name: 'reviewer',
      submitted: true,
      after: 'reviewer:0',
    });
    const answer = await mcp.call('wait', { session: 'reviewer', after: 'reviewer:0' });
    expect(texts(answer)[0]).toContain('ANSWER: please review this');
    expect(submissions(log).map((s) => s.text)).toEqual(['please review this']);
    // By turn ID too; a session with no turn has nothing to relay.
    const again = await mcp.call('relay', { from: source, to: 'reviewer', enter: false });
    expect(again.structuredContent).toMatchObject({ turn_id: source, submitted: false });
    await c.request('send', { session: 'reviewer', keys: ['C-u'] });
    const nothing = toolError(await mcp.call('relay', { from: 'fresh', to: 'reviewer' }));
    expect(nothing.code).toBe('no_turn');
  });
});

describe('new_session, diff and kill', () => {
  it('starts a session in a worktree, shows its changes, and ends it', async () => {
    const repo = makeRepo(path.join(d.env.root, 'repo'));
    const started = await mcp.call('new_session', {
      command: 'bash',
      args: ['--norc', '--noprofile'],
      preset: 'bash',
      name: 'wt',
      cwd: repo,
      worktree: true,
    });
    expect(started.isError).toBeFalsy();
    const info = started.structuredContent as {
      session: string;
      name: string;
      worktree: { path: string; branch: string };
    };
    expect(info).toMatchObject({ name: 'wt', worktree: { branch: 'clippy/wt' } });
    // ask waits for its first prompt.
    const made = await mcp.call('ask', {
      session: 'wt',
      text: "printf 'hello\\n' > note.txt && echo done",
    });
    expect(texts(made)[0]).toBe('done');
    const patch = texts(await mcp.call('diff', { session: 'wt' }))[0]!;
    expect(patch).toContain(`wt on clippy/wt (${info.worktree.path})`);
    expect(patch).toContain('1 files, +1 -0');
    expect(patch).toContain('diff --git a/note.txt b/note.txt');
    expect(patch).toContain('\n+hello\n');
    const stat = texts(await mcp.call('diff', { session: 'wt', stat: true }))[0]!;
    expect(stat).toContain('added     note.txt  +1 -0');
    expect(stat).not.toContain('diff --git');
    const cut = texts(await mcp.call('diff', { session: 'wt', max_chars: 1_000, paths: ['x'] }));
    expect(cut[0]).toContain('0 files');
    const none = toolError(await mcp.call('diff', { session: 'sh' }));
    expect(none.code).toBe('no_worktree');

    const killed = await mcp.call('kill', { session: 'wt' });
    expect(texts(killed)[0]).toContain("sent SIGHUP to 'wt'");
    await waitState(c, info.session, 'exited');
    expect(toolError(await mcp.call('kill', { session: info.session })).code).toBe(
      'session_exited',
    );
    // Its changes stay: the worktree is kept.
    expect(texts(await mcp.call('diff', { session: info.session }))[0]).toContain('note.txt');
  });

  it('names what cannot be started', async () => {
    const missing = toolError(await mcp.call('new_session', { command: 'no-such-program-x' }));
    expect(missing.code).toBe('spawn_failed');
    expect(missing.message).toContain('no-such-program-x');
    const preset = toolError(
      await mcp.call('new_session', { command: 'bash', preset: 'no-such-preset' }),
    );
    expect(preset.code).toBe('unknown_preset');
    const cwd = toolError(
      await mcp.call('new_session', { command: 'bash', cwd: '/no/such/folder' }),
    );
    expect(cwd.code).toBe('cwd_not_found');
    const taken = toolError(await mcp.call('new_session', { command: 'bash', name: 'sh' }));
    expect(taken.code).toBe('duplicate_session');
    const notRepo = toolError(
      await mcp.call('new_session', { command: 'bash', cwd: '/', worktree: true }),
    );
    expect(notRepo.code).toBe('not_a_git_repository');
  });
});

describe('--sessions', () => {
  it('limits what the tools see and touch to the sessions named', async () => {
    const limited = await McpProcess.start(['--sessions', 'sh,helper'], d.env.env);
    try {
      const { sessions } = (await limited.call('list_sessions')).structuredContent as {
        sessions: { name: string }[];
      };
      expect(sessions.map((s) => s.name)).toEqual(['sh']);
      const other = toolError(await limited.call('read_turn', { session: 'tui' }));
      expect(other.code).toBe('session_not_found');
      expect(other.message).toContain('among the sessions this clippy mcp may touch (sh, helper)');
      const relayOut = toolError(await limited.call('relay', { from: 'sh', to: 'tui' }));
      expect(relayOut.code).toBe('session_not_found');
      const unnamed = toolError(await limited.call('new_session', { command: 'bash' }));
      expect(unnamed.code).toBe('not_allowed');
      const started = await limited.call('new_session', {
        command: 'bash',
        args: ['--norc', '--noprofile'],
        preset: 'bash',
        name: 'helper',
      });
      expect(started.isError).toBeFalsy();
      expect(texts(await limited.call('ask', { session: 'helper', text: 'echo hi' }))[0]).toBe(
        'hi',
      );
    } finally {
      await limited.stop();
    }
  });
});

describe('the process', () => {
  it('starts the daemon when none runs, and exits 0 once the agent closes its stdin', async () => {
    const env = new DaemonEnv();
    try {
      // JSON-RPC by hand, as any agent writes it: one message per line.
      const child = spawn(process.execPath, [bins.clippy, 'mcp'], {
        env: env.env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        child.once('exit', (code, signal) => resolve([code, signal])),
      );
      const lines = readline.createInterface({ input: child.stdout });
      const answers = lines[Symbol.asyncIterator]();
      const send = (m: object) =>
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'by-hand', version: '0' },
        },
      });
      const init = JSON.parse((await answers.next()).value as string);
      expect(init.result.serverInfo.name).toBe('clippy');
      expect(init.result.instructions).toContain('list_sessions');
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'list_sessions', arguments: {} } });
      const listed = JSON.parse((await answers.next()).value as string);
      expect(listed.result.content[0].text).toContain('no running clippy sessions');
      child.stdin.end();
      expect(await exited).toEqual([0, null]);
      // The daemon it started goes on, as one `clippy ls` starts would.
      expect(await env.discoverPid()).not.toBeNull();
    } finally {
      await env.dispose();
    }
  });

  it('says on stderr, and exits 69, when no daemon can be reached', async () => {
    const env = new DaemonEnv();
    try {
      const child = spawn(process.execPath, [bins.clippy, 'mcp'], {
        env: { ...env.env, CLIPPYD_PATH: '/no/such/clippyd.js' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(69);
      expect(stderr).toMatch(/^clippy: /u);
      expect(stdout).toBe('');
    } finally {
      await env.dispose();
    }
  });
});
