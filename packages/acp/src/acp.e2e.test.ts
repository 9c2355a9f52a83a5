// `clippy acp` as an editor sees it: an ACP client from the protocol's SDK drives the real CLI
// process, which runs the fake agents (a line agent like aider, a TUI like Claude Code) in the
// real daemon's PTYs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { ClippyClient } from '@clippy/client';
import { agentCommand, type AgentName } from '@clippy/testkit/agents/index';
import {
  answerText,
  choices,
  tuiAnswerText,
  waitChannelLive,
  waitState,
} from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DAEMON_READY_TIMEOUT_MS, TestDaemon } from '@clippy/testkit/daemon';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { acpErrorOf, AcpProcess } from './test-support/acp-process.js';

const PRESET: Record<string, string> = { aider: 'aider', claude: 'claude' };
const ANSWER: Record<string, (q: string) => string> = { aider: answerText, claude: tuiAnswerText };

let daemon: TestDaemon;
let clippy: ClippyClient;
const running: AcpProcess[] = [];

/**
 * The file's hooks: a daemon's start (up to testkit's DAEMON_READY_TIMEOUT_MS) or stop, and
 * the editors' processes stopped, past vitest's 10 s default on a loaded machine (the start
 * took more at a load average of 20; this package's config sets no hookTimeout).
 */
const HOOK_TIMEOUT_MS = DAEMON_READY_TIMEOUT_MS + 10_000;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  clippy = await daemon.connect();
}, HOOK_TIMEOUT_MS);
afterEach(async () => {
  for (const p of running.splice(0)) await p.stop();
}, HOOK_TIMEOUT_MS);
afterAll(async () => {
  await clippy?.close();
  await daemon?.stop();
}, HOOK_TIMEOUT_MS);

/** `clippy acp` serving a fake agent; returns the process and the agent's log file. */
function acpFor(
  kind: AgentName,
  args: string[] = [],
  name = kind,
  acpArgs: string[] = [],
): { acp: AcpProcess; log: string } {
  const log = join(daemon.env.root, `${name}-${running.length}.log`);
  const { command, args: full } = agentCommand(kind, ['--log', log, ...args]);
  const acp = AcpProcess.start(
    [...acpArgs, '--preset', PRESET[kind]!, '--', command, ...full],
    daemon.env.env,
  );
  running.push(acp);
  return { acp, log };
}

async function initialized(acp: AcpProcess) {
  return acp.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: 'test', version: '0' },
  });
}

async function newSession(acp: AcpProcess): Promise<string> {
  await initialized(acp);
  const { sessionId } = await acp.agent.request(methods.agent.session.new, {
    cwd: daemon.env.root,
    mcpServers: [],
  });
  return sessionId;
}

/** The daemon's latest turn of a session. */
async function latestTurn(session: string) {
  return (await clippy.request('get_turn', { session })).turn;
}

describe('clippy acp: initialize', () => {
  it("answers with capabilities that match the SDK's schema: text and links only, load, list, close", async () => {
    const { acp } = acpFor('aider');
    const init = await initialized(acp);
    expect(init).toMatchObject({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        sessionCapabilities: { list: {}, close: {} },
      },
      agentInfo: { name: 'clippy' },
      authMethods: [],
    });
    const schema = JSON.parse(
      readFileSync(
        createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/schema/v1/schema.json'),
        'utf8',
      ),
    ) as { $defs: Record<string, unknown> };
    // The schema's integer formats (int32, uint16…) are Rust's: the types and bounds check them.
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(schema, 'acp');
    const valid = ajv.validate({ $ref: 'acp#/$defs/InitializeResponse' }, init);
    expect(valid, JSON.stringify(ajv.errors)).toBe(true);
  });
});

/** Where in what the editor saw the first update of `kind` came, and the prompt's response. */
function firstOf(acp: AcpProcess, kind: string): { first: number; done: number } {
  return {
    first: acp.seen.findIndex(
      (s) => s.kind === 'update' && s.notification.update.sessionUpdate === kind,
    ),
    done: acp.seen.findIndex((s) => s.kind === 'response'),
  };
}

describe('clippy acp: a prompt is a turn', () => {
  // The fake Claude runs no hooks here: its channel stays off (--no-agent-channel), the screen's
  // text is the answer.
  for (const kind of ['aider', 'claude'] as const) {
    it(`${kind}: end_turn with the exact answer, streamed while it grows; the session is clippy's`, async () => {
      const { acp, log } = acpFor(
        kind,
        ['--pieces', '3', '--pause', '400'],
        kind,
        kind === 'claude' ? ['--no-agent-channel'] : [],
      );
      const sessionId = await newSession(acp);
      const response = await acp.prompt(sessionId, 'What is clippy?');
      expect(response.stopReason).toBe('end_turn');
      const turn = await latestTurn(sessionId);
      expect(turn.text).toContain(ANSWER[kind]!('What is clippy?'));
      // The answer as the editor has it is the turn's text, exactly.
      const messages = acp.messages(sessionId);
      expect(messages.at(-1)!.text).toBe(turn.text);
      // Streamed: a part came before the prompt's response.
      const { first, done } = firstOf(acp, 'agent_message_chunk');
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThan(done - 1);
      // The agent got the prompt, once; the session is listed as any other.
      const got = readFileSync(log, 'utf8');
      expect(got.match(/What is clippy\?/gu)).toHaveLength(1);
      const { sessions } = await clippy.request('list_sessions', {});
      expect(sessions.find((s) => s.session === sessionId)).toMatchObject({
        preset: PRESET[kind],
        turn_count: 1,
      });
    });
  }
});

describe("clippy acp: an agent's own answer (its channel)", () => {
  it("claude with its hooks: the screen streams as thoughts, the answer is the agent's Markdown, once", async () => {
    const { acp } = acpFor('claude', ['--hooks', '--pieces', '3', '--pause', '400']);
    const sessionId = await newSession(acp);
    // Its async hooks (node processes) may come after a quick answer on a loaded machine.
    await waitChannelLive(clippy, sessionId);
    expect((await acp.prompt(sessionId, 'What is clippy?')).stopReason).toBe('end_turn');
    const turn = await latestTurn(sessionId);
    expect(turn.text_source).toBe('agent');
    expect(turn.text).toContain(tuiAnswerText('What is clippy?'));
    // One message, the agent's own text: the screen's rendering of it is never shown as the answer.
    expect(acp.messages(sessionId).map((m) => m.text)).toEqual([turn.text]);
    const { first, done } = firstOf(acp, 'agent_thought_chunk');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(done - 1);
    expect(firstOf(acp, 'agent_message_chunk').first).toBeGreaterThan(first);
  });

  it("claude with its hooks, an answer drawn at once: the thoughts still end as the screen's text", async () => {
    // One piece: the screen's text stops changing at once, so no look at it ever finds its
    // lines settled (nor its last line, which a stream never sends before the end).
    const { acp } = acpFor('claude', ['--hooks']);
    const sessionId = await newSession(acp);
    await waitChannelLive(clippy, sessionId);
    expect((await acp.prompt(sessionId, 'What is clippy?')).stopReason).toBe('end_turn');
    const turn = await latestTurn(sessionId);
    expect(turn.text_source).toBe('agent');
    expect(turn.screen_text).toBeTruthy();
    const { done } = firstOf(acp, 'agent_thought_chunk');
    const thoughts = acp.seen
      .slice(0, done)
      .flatMap((s) =>
        s.kind === 'update' && s.notification.update.sessionUpdate === 'agent_thought_chunk'
          ? [s.notification.update.content]
          : [],
      )
      .map((c) => (c.type === 'text' ? c.text : ''));
    // The last thought message (a screen that changed what was sent starts a new one) is it.
    expect(thoughts.join('')).toContain(turn.screen_text);
    expect(acp.messages(sessionId).map((m) => m.text)).toEqual([turn.text]);
  });

  it('--no-agent-channel is refused with --session (it names how sessions start)', async () => {
    const env = { ...daemon.env.env, CLIPPYD_PATH: '/nonexistent/clippyd.js' };
    const run = await runClippy(['acp', '--session', 's', '--no-agent-channel'], env);
    expect(run.code).toBe(64);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/mutually exclusive|agent-channel/u);
  });
});

describe('clippy acp: a long prompt', () => {
  it("claude: a prompt longer than the daemon keeps of a turn's input still ends with its turn", async () => {
    const { acp } = acpFor('claude');
    const sessionId = await newSession(acp);
    const long = Array.from({ length: 700 }, (_, i) => `word${i}`).join(' ');
    expect(long.length).toBeGreaterThan(4096);
    expect((await acp.prompt(sessionId, long)).stopReason).toBe('end_turn');
    const turn = await latestTurn(sessionId);
    expect(turn.prompt.endsWith('…')).toBe(true);
    expect(turn.text).toContain('word699');
    expect(acp.messages(sessionId).at(-1)!.text).toBe(turn.text);
  });
});

describe('clippy acp: session/cancel', () => {
  for (const kind of ['aider', 'claude'] as const) {
    it(`${kind}: interrupts the agent (${kind === 'claude' ? 'Esc' : 'Ctrl-C'}); the prompt ends cancelled, the turn interrupted`, async () => {
      const { acp } = acpFor(kind, ['--pieces', '6', '--pause', '700']);
      const sessionId = await newSession(acp);
      const answered = acp.prompt(sessionId, 'a long job');
      // Cancelled once the answer has begun to stream (the fake Claude's as thoughts: its
      // channel is wired, and its answer could be the agent's own).
      await acp.until(
        () =>
          acp
            .updates(sessionId)
            .some((u) => /^agent_(?:message|thought)_chunk$/u.test(u.sessionUpdate)),
        'the first part of the answer',
      );
      // One prompt at a time in a session.
      const second = await acpErrorOf(acp.prompt(sessionId, 'meanwhile'));
      expect([second.code, second.message]).toEqual([
        -32600,
        'a prompt is still running in this session: cancel it (session/cancel) or wait for its answer',
      ]);
      await acp.agent.notify(methods.agent.session.cancel, { sessionId });
      expect((await answered).stopReason).toBe('cancelled');
      const turn = await latestTurn(sessionId);
      expect(turn.interrupted).toBe(true);
      expect(turn.text).not.toContain('Piece 6 of 6');
      // The session takes the next prompt.
      expect((await acp.prompt(sessionId, 'again')).stopReason).toBe('end_turn');
      expect((await latestTurn(sessionId)).text).toContain(ANSWER[kind]!('again'));
    });
  }
});

describe('clippy acp: a blocked agent asks the editor', () => {
  it("claude: the dialog's choices become request_permission; the chosen one reaches the agent", async () => {
    const { acp, log } = acpFor('claude', ['--ask']);
    const sessionId = await newSession(acp);
    acp.onPermission((request) => {
      const always = request.options.find((o) => o.kind === 'allow_always')!;
      return { outcome: { outcome: 'selected', optionId: always.optionId } };
    });
    const response = await acp.prompt(sessionId, 'run the tests');
    expect(response.stopReason).toBe('end_turn');
    const asked = acp.seen.flatMap((s) => (s.kind === 'permission' ? [s.request] : []));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall.title).toBe('Do you want to proceed?');
    expect(asked[0]!.options.map((o) => [o.name, o.kind])).toEqual([
      ['Yes', 'allow_once'],
      ["Yes, and don't ask again for make commands in this project", 'allow_always'],
      ['No, and tell Claude what to do differently (esc)', 'reject_once'],
    ]);
    // The question was shown as a tool call with the command as its content, then settled.
    const calls = acp.updates(sessionId).filter((u) => u.sessionUpdate.startsWith('tool_call'));
    expect(calls[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      title: 'Do you want to proceed?',
      content: [
        {
          type: 'content',
          content: { type: 'text', text: 'Bash command\nmake test\nRun the tests' },
        },
      ],
    });
    expect(calls.at(-1)).toMatchObject({ sessionUpdate: 'tool_call_update', status: 'completed' });
    expect(choices(log)).toEqual(["Yes, and don't ask again for make commands in this project"]);
    const turn = await latestTurn(sessionId);
    expect(turn.text).toContain(
      "Permission: Yes, and don't ask again for make commands in this project",
    );
    expect(acp.messages(sessionId).at(-1)!.text).toBe(turn.text);
  });

  it("aider: the typed-letter question; the editor's No is typed as n, Enter", async () => {
    const { acp, log } = acpFor('aider', ['--ask']);
    const sessionId = await newSession(acp);
    acp.onPermission((request) => {
      const no = request.options.find((o) => o.name === 'No')!;
      expect(no.kind).toBe('reject_once');
      return { outcome: { outcome: 'selected', optionId: no.optionId } };
    });
    expect((await acp.prompt(sessionId, 'run the tests')).stopReason).toBe('end_turn');
    expect(choices(log)).toEqual(['No']);
    expect((await latestTurn(sessionId)).text).toContain('Permission: No');
  });
});

describe('clippy acp: a question before the prompt', () => {
  it('asks the editor first, then types the prompt: never into the dialog', async () => {
    const log = join(daemon.env.root, 'asking.log');
    const { command, args } = agentCommand('claude', ['--log', log, '--ask']);
    await clippy.request('spawn', {
      command,
      args,
      name: 'asking',
      preset: 'claude',
      cwd: daemon.env.root,
      env: daemon.env.env as Record<string, string>,
    });
    await waitState(clippy, 'asking', 'idle');
    // Someone else's prompt left the agent asking.
    await clippy.request('send', { session: 'asking', text: 'from a terminal', enter: true });
    await waitState(clippy, 'asking', 'blocked');
    const acp = AcpProcess.start(['--session', 'asking'], daemon.env.env);
    running.push(acp);
    const sessionId = await newSession(acp);
    acp.onPermission((request) => ({
      outcome: { outcome: 'selected', optionId: request.options[0]!.optionId },
    }));
    expect((await acp.prompt(sessionId, 'from the editor')).stopReason).toBe('end_turn');
    expect(acp.seen.filter((s) => s.kind === 'permission')).toHaveLength(2);
    expect(choices(log)).toEqual(['Yes', 'Yes']);
    const { turns } = await clippy.request('list_turns', { session: 'asking' });
    expect(turns.map((t) => t.prompt).reverse()).toEqual(['from a terminal', 'from the editor']);
    const turn = await latestTurn('asking');
    expect(acp.messages(sessionId).at(-1)!.text).toBe(turn.text);
    expect(turn.text).toContain(tuiAnswerText('from the editor'));
  });
});

describe('clippy acp: an agent slow to start', () => {
  it('a prompt waits for its first prompt as long as it takes, telling the editor once; then it is answered', async () => {
    const log = join(daemon.env.root, 'late.log');
    const go = join(daemon.env.root, 'late.go');
    const { command, args } = agentCommand('aider', ['--log', log]);
    // It prints nothing until the test lets it go on: an agent loading on a loaded machine.
    const wait = 'while [ ! -e "$0" ]; do sleep 0.1; done; exec "$@"';
    const acp = AcpProcess.start(
      ['--preset', 'aider', '--', 'sh', '-c', wait, go, command, ...args],
      daemon.env.env,
    );
    running.push(acp);
    const sessionId = await newSession(acp);
    const answered = acp.prompt(sessionId, 'Are you there?');
    const thoughts = () =>
      acp
        .updates(sessionId)
        .flatMap((u) =>
          u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text'
            ? [u.content.text]
            : [],
        );
    await acp.until(() => thoughts().length > 0, 'the editor told that the agent still starts');
    expect(thoughts().join('')).toMatch(/has not shown its prompt yet.*clippy attach/u);
    writeFileSync(go, '');
    expect((await answered).stopReason).toBe('end_turn');
    expect(acp.messages(sessionId).at(-1)!.text).toContain(answerText('Are you there?'));
    expect(thoughts()).toHaveLength(1);
  });
});

describe('clippy acp: what it refuses, and its errors', () => {
  it('refuses an image with invalid params (the agent reads text), and a session it does not know', async () => {
    const { acp } = acpFor('aider');
    const sessionId = await newSession(acp);
    const image = await acpErrorOf(
      acp.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        ],
      }),
    );
    expect(image.code).toBe(-32602);
    expect(image.message).toMatch(/reads text only: an image cannot be sent/u);
    const resource = await acpErrorOf(
      acp.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'resource', resource: { uri: 'file:///x.txt', text: 'x' } }],
      }),
    );
    expect(resource.code).toBe(-32602);
    const unknown = await acpErrorOf(
      acp.agent.request(methods.agent.session.prompt, {
        sessionId: 'no-such-session',
        prompt: [{ type: 'text', text: 'hi' }],
      }),
    );
    expect(unknown.code).toBe(-32002);
    const load = await acpErrorOf(
      acp.agent.request(methods.agent.session.load, {
        sessionId: 'no-such-session',
        cwd: daemon.env.root,
        mcpServers: [],
      }),
    );
    expect(load.code).toBe(-32002);
    // Nothing was typed into the agent, and it still answers.
    expect((await acp.prompt(sessionId, 'still there?')).stopReason).toBe('end_turn');
    const { turns } = await clippy.request('list_turns', { session: sessionId });
    expect(turns.map((t) => t.prompt)).toEqual(['still there?']);
  });

  it('answers a message of any size with a JSON-RPC error and goes on: 17 MB past the daemon’s frame, 40 MB past what it reads', async () => {
    const { acp } = acpFor('aider');
    const sessionId = await newSession(acp);
    const exited = acp.exited.then((code) => `exited with ${code}: ${acp.log}`);
    for (const [bytes, code, words] of [
      [17_000_000, -32603, /exceeds the 16777216-byte frame limit/u],
      [40_000_000, -32600, /over the 33554432 bytes clippy acp reads; it was dropped unread/u],
    ] as const) {
      const refused = acpErrorOf(
        acp.agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'x'.repeat(bytes) }],
        }),
      );
      const error = await Promise.race([refused, exited]);
      if (typeof error === 'string') throw new Error(`clippy acp ${error}`);
      expect([error.code, error.message]).toEqual([code, expect.stringMatching(words)]);
    }
    // Still serving the editor: the next prompt is typed and answered.
    expect((await acp.prompt(sessionId, 'still there?')).stopReason).toBe('end_turn');
    const { turns } = await clippy.request('list_turns', { session: sessionId });
    expect(turns.map((t) => t.prompt)).toEqual(['still there?']);
  });

  it('a resource link is typed as the file path', async () => {
    const { acp } = acpFor('aider');
    const sessionId = await newSession(acp);
    await acp.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'look at' },
        { type: 'resource_link', name: 'main.ts', uri: 'file:///src/main.ts' },
        { type: 'text', text: 'please' },
      ],
    });
    expect((await latestTurn(sessionId)).prompt).toBe('look at /src/main.ts please');
  });

  it("the error codes are the protocol's: every one in the SDK schema's ErrorCode list", async () => {
    const schema = JSON.parse(
      readFileSync(
        createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/schema/v1/schema.json'),
        'utf8',
      ),
    ) as { $defs: { ErrorCode: { anyOf: { const?: number }[] } } };
    const known = schema.$defs.ErrorCode.anyOf.flatMap((c) =>
      c.const !== undefined ? [c.const] : [],
    );
    const { acp } = acpFor('aider');
    const beforeInit = await acpErrorOf(
      acp.agent.request(methods.agent.session.new, { cwd: daemon.env.root, mcpServers: [] }),
    );
    await initialized(acp);
    const badCwd = await acpErrorOf(
      acp.agent.request(methods.agent.session.new, {
        cwd: join(daemon.env.root, 'nope'),
        mcpServers: [],
      }),
    );
    expect(badCwd.message).toMatch(/nope/u);
    const codes = [beforeInit.code, badCwd.code];
    expect(codes).toEqual([-32600, -32602]);
    for (const code of codes) expect(known).toContain(code);
  });
});

describe('clippy acp: sessions beyond one editor', () => {
  it('session/load takes up a clippy session by name, with its turns as the conversation', async () => {
    const first = acpFor('aider').acp;
    const sessionId = await newSession(first);
    await first.prompt(sessionId, 'remember me');
    const { sessions } = await clippy.request('list_sessions', {});
    const name = sessions.find((s) => s.session === sessionId)!.name;
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const second = acpFor('aider').acp;
    await initialized(second);
    const listed = await second.agent.request(methods.agent.session.list, { cwd: daemon.env.root });
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await second.agent.request(methods.agent.session.load, {
      sessionId: name,
      cwd: daemon.env.root,
      mcpServers: [],
    });
    const replay = second
      .updates(name)
      .map((u) =>
        u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk'
          ? [u.sessionUpdate, u.content.type === 'text' ? u.content.text : '']
          : [u.sessionUpdate],
      );
    expect(replay).toEqual([
      ['user_message_chunk', 'remember me'],
      ['agent_message_chunk', answerText('remember me')],
    ]);
    expect((await second.prompt(name, 'and now?')).stopReason).toBe('end_turn');
    expect(second.messages(name).at(-1)!.text).toBe(answerText('and now?'));
  });

  it('--session runs the editor in an existing session; a person may type there meanwhile', async () => {
    const log = join(daemon.env.root, 'shared.log');
    const { command, args } = agentCommand('aider', ['--log', log]);
    await clippy.request('spawn', {
      command,
      args,
      name: 'shared',
      preset: 'aider',
      cwd: daemon.env.root,
      env: daemon.env.env as Record<string, string>,
    });
    const acp = AcpProcess.start(['--session', 'shared'], daemon.env.env);
    running.push(acp);
    const sessionId = await newSession(acp);
    const { sessions } = await clippy.request('list_sessions', {});
    expect(sessions.find((s) => s.name === 'shared')!.session).toBe(sessionId);
    expect((await acp.prompt(sessionId, 'from the editor')).stopReason).toBe('end_turn');
    // A turn typed elsewhere (clippy send, a terminal) is not the editor's answer. Its turn is
    // waited for: two inputs sent the same moment are not kept apart yet (docs/acp.md).
    const before = (await latestTurn('shared')).turn_id;
    await clippy.request('send', { session: 'shared', text: 'from a terminal', enter: true });
    await clippy.request('wait_turn', { session: 'shared', after: before }, { timeoutMs: 30_000 });
    expect((await acp.prompt(sessionId, 'from the editor again')).stopReason).toBe('end_turn');
    expect(acp.messages(sessionId).map((m) => m.text)).toEqual([
      answerText('from the editor'),
      answerText('from the editor again'),
    ]);
  });
});

describe('clippy acp: two editors on one session', () => {
  it("each editor's prompt ends with its own turn, streamed to it alone", async () => {
    const { command, args } = agentCommand('aider', ['--pieces', '3', '--pause', '300']);
    await clippy.request('spawn', {
      command,
      args,
      name: 'two',
      preset: 'aider',
      cwd: daemon.env.root,
      env: daemon.env.env as Record<string, string>,
    });
    const [a, b] = [0, 1].map(() => AcpProcess.start(['--session', 'two'], daemon.env.env));
    running.push(a!, b!);
    const idA = await newSession(a!);
    expect(await newSession(b!)).toBe(idA);
    expect((await a!.prompt(idA, 'from editor A')).stopReason).toBe('end_turn');
    expect((await b!.prompt(idA, 'from editor B')).stopReason).toBe('end_turn');
    expect((await a!.prompt(idA, 'from editor A again')).stopReason).toBe('end_turn');
    const text = async (prompt: string) => {
      const { turns } = await clippy.request('list_turns', { session: 'two' });
      const meta = turns.find((t) => t.prompt === prompt)!;
      return (await clippy.request('get_turn', { turn_id: meta.turn_id })).turn.text;
    };
    expect(a!.messages(idA).map((m) => m.text)).toEqual([
      await text('from editor A'),
      await text('from editor A again'),
    ]);
    expect(b!.messages(idA).map((m) => m.text)).toEqual([await text('from editor B')]);
    expect(await text('from editor B')).toContain(answerText('from editor B'));
  });
});

describe('clippy acp: the command line', () => {
  it('refuses a command with --session, and --session with --preset, before anything runs', async () => {
    const env = { ...daemon.env.env, CLIPPYD_PATH: '/nonexistent/clippyd.js' };
    // Two refusals that start nothing (each a node start-up): run at once.
    const [both, conflict] = await Promise.all([
      runClippy(['acp', '--session', 's', '--', 'claude'], env),
      runClippy(['acp', '--session', 's', '--preset', 'claude'], env),
    ]);
    expect([both.code, both.stdout]).toEqual([64, '']);
    expect(both.stderr).toContain(
      '--session runs the editor in an existing session: it takes no command',
    );
    expect(conflict.code).toBe(64);
    expect(conflict.stderr).toMatch(/mutually exclusive|--preset/u);
  });

  it('ends when the daemon stops, saying why on stderr (exit 69); a running prompt fails', async () => {
    const own = await TestDaemon.start();
    try {
      const { command, args } = agentCommand('aider', ['--pieces', '5', '--pause', '1000']);
      const acp = AcpProcess.start(['--preset', 'aider', '--', command, ...args], own.env.env);
      running.push(acp);
      await acp.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION });
      const { sessionId } = await acp.agent.request(methods.agent.session.new, {
        cwd: own.env.root,
        mcpServers: [],
      });
      const prompt = acp.prompt(sessionId, 'a long job').catch((err: unknown) => err);
      await acp.until(() => acp.messages(sessionId).length > 0, 'the answer begins');
      // The daemon alone, by PID: own.stop() would also dispose of the environment, which ends
      // every process still in it (`clippy acp` too, by signal, when it is slow to notice
      // under load) before the exit this checks.
      process.kill(own.pid, 'SIGTERM');
      await own.exited;
      expect(await acp.exited).toBe(69);
      expect(acp.log).toContain('clippy: the clippy daemon shut down');
      expect(await prompt).toBeInstanceOf(Error);
    } finally {
      await own.stop();
    }
  });

  it('with no daemon to reach, says so on stderr (what an editor shows) and nothing on stdout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clippy-acp-'));
    try {
      const env = { ...process.env, XDG_RUNTIME_DIR: dir, CLIPPYD_PATH: '/nonexistent/clippyd.js' };
      const run = await runClippy(['acp', '--', 'sh'], env, undefined, '');
      expect(run.code).toBe(69);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^clippy: /u);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
