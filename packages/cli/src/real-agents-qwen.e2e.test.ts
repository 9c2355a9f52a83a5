import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import { MARKDOWN_ANSWERS, answerFor, askFor } from '@clippy/testkit/markdown-answers';
import {
  QWEN_MODEL,
  agentsMissing,
  approvalToolCall,
  prepareAgent,
  type AgentSetup,
} from '@clippy/testkit/real-agents';
import { listed, screenOf, untilListed } from '@clippy/testkit/real-agent-session';

// Issue 45: Qwen Code (pinned in packages/testkit/agents.json, installed by .ci/run) under the
// real daemon and CLI against the fake model's OpenAI Chat Completions API, checked the way the
// three agents before it are (real-agents-suite.ts, agent-channels.e2e.test.ts), on one Qwen
// session for every check: the first question as soon as it is idle, shortcut characters and a
// two-line question reaching the model as typed, its own Markdown answers exactly (its hooks and
// transcript), cost beside tokens, a dialog answered with `send --keys`, notifications and
// unread answers, relay both ways and a loop with Codex, Esc, and revive after a daemon restart.

/** A real agent's start on a loaded 2-core machine (Qwen Code takes 30 s and more). */
const START_MS = 180_000;
/** One `ask` through a real agent (its node start, the model, its redraw, its hook). */
const ASK_MS = 120_000;

/** One line with every character an agent may take as a shortcut: it must reach the model as is. */
const SHORTCUTS = 'What is 2+2? Reply with #1, @x, !y, /z, a \\ and $HOME, please.';
const TWO_LINES = 'Two lines in one message:\nthe second one asks why?';
/** The loop's end: Codex's review of Qwen's list. */
const LGTM = 'Reviewed the steps: LGTM.';
/** Qwen's price in this test's config.json (USD per 1M tokens); Codex's model has none. */
const PRICE = { input: 2, output: 8 };

function respond(r: ModelRequest): Answer | undefined {
  if (r.toolResult !== null) return { kind: 'text', text: 'The command ran.' };
  const text = r.userText ?? '';
  if (text.includes('APPROVE-ME')) return approvalToolCall('qwen', 'touch approved.txt');
  if (text.includes('HANG-ME')) return { kind: 'hang', text: 'Thinking it over' };
  const markdown = answerFor(text);
  if (markdown !== undefined) return { kind: 'text', text: markdown, pieces: 6 };
  // Codex reviews the list the loop hands it.
  if (r.api === 'openai' && text === MARKDOWN_ANSWERS.list) return { kind: 'text', text: LGTM };
  return { kind: 'text', text: `Answer to a question of ${text.length} characters.` };
}

const missing = agentsMissing('qwen');
if (missing) console.warn(`Qwen Code e2e tests ${missing}`);

describe.skipIf(missing !== null)('qwen, the real CLI', () => {
  let model: FakeModel;
  let notify: FakeNotifySend;
  let env: DaemonEnv;
  let d: TestDaemon | null = null;
  let c: ClippyClient;
  let qwen: AgentSetup;
  const setups: AgentSetup[] = [];
  const cli = () => env.env;
  /** The user texts Qwen's model received, in order. */
  const received = () => qwen.conversation().map((r) => r.userText);

  async function ask(name: string, text: string, json = false) {
    const since = model.requests.length;
    const args = [
      'ask',
      name,
      text,
      '--timeout',
      String(ASK_MS / 1000),
      ...(json ? ['--json'] : []),
    ];
    const r = await runClippy(args, cli(), ASK_MS + 10_000);
    if (r.code === 0) return r;
    const got = model.requests.slice(since).map((q) => `${q.api}: ${JSON.stringify(q.userText)}`);
    return {
      ...r,
      stderr: `${r.stderr}\n${await screenOf(cli(), name)}\nthe model got since: ${got.join('; ') || 'nothing'}`,
    };
  }

  async function spawn(s: AgentSetup, name: string, persist = false) {
    await c.request('spawn', {
      command: s.command,
      args: s.args,
      env: s.env,
      cwd: s.cwd,
      name,
      preset: s.preset,
      cols: 100,
      rows: 30,
      ...(persist ? { persist: true } : {}),
    });
  }

  beforeAll(async () => {
    model = await startFakeModel({ respond });
    notify = new FakeNotifySend();
    env = new DaemonEnv({ DISPLAY: ':99', PATH: notify.path() });
    const config = path.join(env.env.XDG_CONFIG_HOME!, 'clippy');
    fs.mkdirSync(config, { recursive: true });
    fs.writeFileSync(
      path.join(config, 'config.json'),
      JSON.stringify({ pricing: { models: { [QWEN_MODEL]: PRICE } } }),
    );
    d = await TestDaemon.start({ env });
    c = await d.connect();
    qwen = prepareAgent('qwen', model, { root: env.root });
    setups.push(qwen);
    await spawn(qwen, 'qwen', true);
  }, START_MS);

  afterAll(async () => {
    await c?.close();
    await d?.stop();
    model?.releaseHanging();
    await model?.close();
    notify?.dispose();
    for (const s of setups) s.dispose();
  }, START_MS);

  it(
    'answers the first question asked the moment `clippy ls` says idle; every shortcut character reaches the model',
    async () => {
      await untilListed(cli(), 'qwen', ['idle'], START_MS);
      const r = await ask('qwen', SHORTCUTS);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      // The agent's own answer (its channel): no ◆ of its screen.
      expect(r.stdout).toBe(`Answer to a question of ${SHORTCUTS.length} characters.\n`);
      expect(received()).toEqual([SHORTCUTS]);
      const two = await ask('qwen', TWO_LINES);
      expect(two.stdout).toBe(`Answer to a question of ${TWO_LINES.length} characters.\n`);
      expect(received()).toEqual([SHORTCUTS, TWO_LINES]);
    },
    START_MS + ASK_MS * 2,
  );

  it(
    "ask prints the model's Markdown exactly for every answer of the set, from Qwen's own record",
    async () => {
      const exact: string[] = [];
      for (const [key, answer] of Object.entries(MARKDOWN_ANSWERS)) {
        const r = await ask('qwen', askFor(key));
        expect(r.code, `${key}: ${r.stderr}`).toBe(0);
        const { turn } = await c.request('get_turn', { session: 'qwen' });
        const { content: _c, text: _t, screen_text: _s, ...meta } = turn;
        expect(r.stdout, `${key}: ${JSON.stringify(meta)}`).toBe(`${answer}\n`);
        exact.push(key);
        expect(turn.text_source).toBe('agent');
        expect(turn.agent).toMatchObject({
          agent: 'qwen',
          via: 'qwen-transcript',
          model: QWEN_MODEL,
        });
        if (turn.disagreement) console.log(`qwen ${key}: ${turn.disagreement}`);
        expect(turn.screen_text).toBeDefined();
      }
      console.log(`qwen: exact ${exact.length}/${Object.keys(MARKDOWN_ANSWERS).length}`);
    },
    ASK_MS * 7,
  );

  it('ls --json shows the channel live, its session, tokens and their cost at the configured price; turns shows them per turn', async () => {
    const { sessions } = await c.request('list_sessions', {});
    const s = sessions.find((x) => x.name === 'qwen')!;
    expect(s).toMatchObject({ agent: 'qwen', agent_channel: 'live' });
    expect(s.agent_session).toBeTruthy();
    // The fake model counts 12 prompt and 10 answer tokens a call.
    expect(s.input_tokens! % 12).toBe(0);
    expect(s.output_tokens).toBe((s.input_tokens! / 12) * 10);
    expect(s.cost_usd).toBeCloseTo(
      (s.input_tokens! * PRICE.input + s.output_tokens! * PRICE.output) / 1e6,
      12,
    );
    expect(s.cost_unknown).toBeUndefined();
    const ls = await runClippy(['ls'], cli());
    expect(ls.stdout).toMatch(/COST/);
    expect(ls.stdout.split('\n').find((l) => l.startsWith('qwen '))).toMatch(/\$0\.\d+\s*$/u);
    const turns = await runClippy(['turns', 'qwen', '-n', '1'], cli());
    expect(turns.stdout).toMatch(/TOKENS\s+COST/u);
    expect(turns.stdout).toMatch(/12\/10\s+\$0\.00010\b/u);
  });

  it(
    'an approval dialog is `blocked` and notified once; `send --keys Enter` answers it; the answer is unread until shown',
    async () => {
      const before = notify.records().length;
      const turns = (await listed(cli(), 'qwen'))!.turn_count;
      const sent = await runClippy(
        ['send', 'qwen', 'Please create a file. APPROVE-ME', '--enter'],
        cli(),
      );
      expect(sent.code, sent.stderr).toBe(0);
      expect(await untilListed(cli(), 'qwen', ['blocked'], ASK_MS)).toBe('blocked');
      const keys = await runClippy(['send', 'qwen', '--keys', 'Enter'], cli());
      expect(keys.code, keys.stderr).toBe(0);
      // Its turn completes (polled with `ls`: a `wait` or `ask` would read it).
      const deadline = Date.now() + ASK_MS;
      while ((await listed(cli(), 'qwen'))!.turn_count === turns && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 250));
      const { turn } = await c.request('get_turn', { session: 'qwen' });
      expect(turn.text).toBe('The command ran.');
      expect(fs.existsSync(path.join(qwen.cwd, 'approved.txt'))).toBe(true);
      expect(qwen.conversation().at(-1)?.toolResult).not.toBeNull();
      // Nobody read it yet: unread in ls, and the desktop was told it asked, then that it finished.
      const row = (await runClippy(['ls'], cli())).stdout
        .split('\n')
        .find((l) => l.startsWith('qwen '));
      expect(row).toMatch(/idle, 1 unread/u);
      await notify.waitFor(before + 2, ASK_MS);
      const told = notify
        .records()
        .slice(before)
        .map((n) => n.title);
      expect(told.filter((t) => t === 'qwen needs you')).toHaveLength(1);
      expect(told.indexOf('qwen needs you')).toBeLessThan(told.lastIndexOf('qwen: turn finished'));
      expect((await runClippy(['show', 'qwen'], cli())).stdout).toBe('The command ran.\n');
      expect((await listed(cli(), 'qwen'))?.state).toBe('idle');
    },
    ASK_MS * 2,
  );

  describe.skipIf(agentsMissing('codex') !== null)('with Codex', () => {
    let codex: AgentSetup;

    beforeAll(async () => {
      codex = prepareAgent('codex', model, { root: env.root });
      setups.push(codex);
      await spawn(codex, 'codex');
      await waitState(c, 'codex', 'idle', START_MS);
    }, START_MS);

    /** Resolves with the conversation request of `api` whose user text is `text`. */
    const got = (api: string, text: string, since: number) =>
      model.waitFor((r) => r.api === api && r.conversation && r.userText === text, {
        since,
        timeoutMs: ASK_MS,
      });

    it(
      "relay qwen → codex and back: each model receives the other's Markdown exactly",
      async () => {
        for (const [from, to, key, api] of [
          ['qwen', 'codex', 'table', 'openai'],
          ['codex', 'qwen', 'code', 'openai-chat'],
        ] as const) {
          const r = await ask(from, askFor(key));
          expect(r.stdout).toBe(`${MARKDOWN_ANSWERS[key]}\n`);
          const since = model.requests.length;
          const after = (await c.request('list_turns', { session: to, limit: 1 })).turns[0];
          const relayed = await runClippy(['relay', from, to], cli(), ASK_MS);
          expect(relayed.code, relayed.stderr).toBe(0);
          await got(api, MARKDOWN_ANSWERS[key]!, since);
          await c.request('wait_turn', {
            session: to,
            after: after?.turn_id ?? `${to}:0`,
            timeout_ms: ASK_MS,
          });
        }
      },
      ASK_MS * 5,
    );

    it(
      'loop qwen ⇄ codex --until LGTM: the list reaches Codex exactly, its review ends the loop',
      async () => {
        const since = model.requests.length;
        const loop = await runClippy(
          [
            'loop',
            'qwen',
            'codex',
            '--until',
            'LGTM',
            '--rounds',
            '3',
            '--name',
            'review',
            '--prompt',
            askFor('list'),
          ],
          cli(),
        );
        expect(loop.code, loop.stderr).toBe(0);
        expect((await got('openai-chat', askFor('list'), since)).userText).toBe(askFor('list'));
        await got('openai', MARKDOWN_ANSWERS.list!, since);
        let log = '';
        const deadline = Date.now() + ASK_MS;
        while (!/ended/u.test(log) && Date.now() < deadline) {
          log = (await runClippy(['route', 'log', 'review'], cli())).stdout;
          if (!/ended/u.test(log)) await new Promise((r) => setTimeout(r, 250));
        }
        expect(log).toMatch(/review ended .*matched --until/u);
        // Codex's LGTM ended it: nothing more went back to Qwen.
        expect(
          model.requests.filter((q) => q.seq > since && q.api === 'openai-chat' && q.conversation),
        ).toHaveLength(1);
        // Codex's model has no price here: its cost says so rather than nothing.
        const s = (await c.request('list_sessions', {})).sessions.find((x) => x.name === 'codex')!;
        expect(s.cost_usd).toBeUndefined();
        expect(s.cost_unknown).toMatch(/^no price for model /u);
        const row = (await runClippy(['ls'], cli())).stdout
          .split('\n')
          .find((l) => l.startsWith('codex '));
        expect(row).toMatch(/no price\s*$/u);
      },
      ASK_MS * 4,
    );
  });

  it(
    'Esc stops a turn: `ask` prints it, flagged interrupted, its text read off the screen',
    async () => {
      await untilListed(cli(), 'qwen', ['idle'], ASK_MS);
      const asked = ask('qwen', 'Think about it for long. HANG-ME', true);
      await model.waitFor(
        (r) => r.api === 'openai-chat' && r.conversation && !!r.userText?.includes('HANG-ME'),
        {
          timeoutMs: ASK_MS,
        },
      );
      await untilListed(cli(), 'qwen', ['busy'], ASK_MS);
      expect((await runClippy(['send', 'qwen', '--keys', 'Esc'], cli())).code).toBe(0);
      const r = await asked;
      expect(r.stderr).toContain('was interrupted');
      expect(r.code).toBe(130);
      const turn = JSON.parse(r.stdout) as {
        interrupted: boolean;
        text: string;
        text_source: string;
      };
      expect(turn.interrupted).toBe(true);
      expect(turn.text_source).toBe('screen');
      expect(turn.text).toContain('Thinking it over');
      model.releaseHanging();
      await untilListed(cli(), 'qwen', ['idle'], ASK_MS);
      // The next question reaches the model alone (Qwen Code puts a cancelled prompt back in its box).
      const next = await ask('qwen', 'And a short one?');
      expect(next.stdout, next.stderr).toBe(
        `Answer to a question of ${'And a short one?'.length} characters.\n`,
      );
      expect(received().at(-1)).toBe('And a short one?');
    },
    ASK_MS * 3,
  );

  it(
    'after a daemon restart, ls -a offers the exited Qwen session and revive resumes its conversation with --resume',
    async () => {
      const { turn: before } = await c.request('get_turn', { session: 'qwen' });
      const agentSession = (await c.request('list_sessions', {})).sessions.find(
        (s) => s.name === 'qwen',
      )!.agent_session!;
      await c.close();
      expect((await runClippy(['daemon', 'stop'], cli())).code).toBe(0);
      await d!.exited;
      d = await TestDaemon.start({ env });
      c = await d.connect();
      const ls = await runClippy(['ls', '-a'], cli());
      expect(ls.stderr).toContain('clippy revive qwen');
      const shell = {
        ...qwen.env,
        ...Object.fromEntries(Object.entries(cli()).filter(([k]) => /^(XDG_|CLIPPY)/u.test(k))),
      };
      const revived = await runClippy(['revive', 'qwen', '-d', '--json'], shell);
      expect(revived.code, revived.stderr).toBe(0);
      expect(JSON.parse(revived.stdout)).toMatchObject({
        name: 'qwen',
        args: ['--resume', agentSession, ...qwen.args],
      });
      await untilListed(cli(), 'qwen', ['idle'], START_MS);
      const since = model.requests.length;
      const r = await ask('qwen', askFor('table'));
      expect(r.stdout).toBe(`${MARKDOWN_ANSWERS.table}\n`);
      const { turn } = await c.request('get_turn', { session: 'qwen' });
      expect(turn.seq).toBe(before.seq + 1);
      expect(turn.agent?.session_id).toBe(agentSession);
      // Resumed: the model got the earlier exchange with the new question.
      const req = await model.waitFor(
        (q) => q.api === 'openai-chat' && q.conversation && q.userText === askFor('table'),
        { since },
      );
      expect(JSON.stringify(req.body)).toContain(askFor('code'));
    },
    START_MS + ASK_MS * 2,
  );
});
