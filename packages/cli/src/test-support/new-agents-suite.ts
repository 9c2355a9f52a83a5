import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import { MARKDOWN_ANSWERS, answerFor, askFor } from '@clippy/testkit/markdown-answers';
import {
  agentsMissing,
  approvalToolCall,
  prepareAgent,
  type AgentSetup,
} from '@clippy/testkit/real-agents';

/** The agents of issue 45 whose model speaks Chat Completions. */
export type NewAgent = 'opencode' | 'copilot';

/** What differs between them, as their screens and command lines show it. */
export interface NewAgentTraits {
  /** Its own session IDs (`ses_…`, a UUID). */
  sessionId: RegExp;
  /** The option that resumes a session: `--session ID` / `--session-id ID`. */
  resume: string;
  /** Its chrome, none of which is in a turn's screen text. */
  chrome: RegExp;
}
import {
  listed,
  screenOf,
  startRealAgent,
  untilListed,
  type RealAgentSession,
} from '@clippy/testkit/real-agent-session';

// Issue 45: OpenCode and Copilot CLI (pinned in packages/testkit/agents.json, installed by .ci/run
// outside node_modules) under the real daemon and CLI against the fake model server's OpenAI
// Chat Completions: what the three first agents do (real-agents-*.e2e, agent-channels.e2e), with
// one session of the agent for every check (they start slowly), Claude Code beside it for relay
// and loop, and a second daemon for revive. One test file per agent runs this suite
// (real-agents-opencode, real-agents-copilot), so that the agents run side by side.

/** A real agent's turn on a loaded 2-core machine takes seconds; `ask` may wait this long. */
const ASK_TIMEOUT_S = 120;
/** One scenario: a few turns on a busy machine, with room. */
const SCENARIO_MS = 300_000;
/** The agent's start (OpenCode: its TUI, its server, its plugins) on a loaded 2-core machine. */
const START_MS = 180_000;

/** The price config.json gives the fake model (USD per million tokens): each turn is priced. */
const PRICE = { input: 2, output: 8 };
/** The model both agents ask for (OpenCode names it `fake/fake-model`: priced as its model). */
const FAKE_MODEL = 'fake-model';

/** One line with every character an agent may take as a shortcut: it must reach the model as is. */
const SHORTCUTS = 'What is 2+2? Reply with #1, @x, !y, /z, a \\ and $HOME, please.';
const TWO_LINES = 'Two lines, first:\nthe second one asks why?';
const LOOP_DONE = 'LGTM';
/** What a model answers to an answer relayed to it: the loop's list → unicode → LGTM. */
const RELAY_REPLIES = new Map<string, string>([
  [MARKDOWN_ANSWERS.list!, MARKDOWN_ANSWERS.unicode!],
  [MARKDOWN_ANSWERS.unicode!, LOOP_DONE],
]);

/** What the fake model answers, from markers in the question. */
function respond(agent: NewAgent, r: ModelRequest): Answer | undefined {
  if (r.toolResult !== null) return { kind: 'text', text: 'The command ran.' };
  const text = r.userText ?? '';
  if (text.includes('APPROVE-ME')) return approvalToolCall(agent, 'touch approved.txt');
  if (text.includes('HANG-ME')) return { kind: 'hang', text: 'Thinking it over' };
  const markdown = answerFor(text) ?? RELAY_REPLIES.get(text);
  if (markdown !== undefined) return { kind: 'text', text: markdown, pieces: 6 };
  return { kind: 'text', text: `Answer to a question of ${text.length} characters.` };
}

/** The suite of `agent`, skipped (saying why) where it or Claude Code is not installed. */
export function newAgentSuite(agent: NewAgent, traits: NewAgentTraits): void {
  const missing = agentsMissing(agent, 'claude');
  if (missing) console.warn(`${agent} e2e tests ${missing}`);

  describe.skipIf(missing !== null)(`${agent}, the real CLI`, () => {
    let model: FakeModel;
    let fake: FakeNotifySend;
    let d: TestDaemon;
    let c: ClippyClient;
    let a: RealAgentSession;
    let claude: RealAgentSession;
    const extra: AgentSetup[] = [];
    const env = () => d.env.env;
    /** The user texts OpenCode's model received, in order. */
    const received = () => a.conversation().map((r) => r.userText);

    async function ask(name: string, text: string, json = false) {
      const since = model.requests.length;
      const args = [
        'ask',
        name,
        text,
        '--timeout',
        String(ASK_TIMEOUT_S),
        ...(json ? ['--json'] : []),
      ];
      const r = await runClippy(args, env(), (ASK_TIMEOUT_S + 30) * 1000);
      if (r.code === 0) return r;
      const got = model.requests
        .slice(since)
        .map((q) => `${q.api}${q.conversation ? '' : ' (aside)'}: ${JSON.stringify(q.userText)}`);
      return {
        ...r,
        stderr: `${r.stderr}\n${await screenOf(env(), name)}\nthe model got since: ${got.join('; ') || 'nothing'}\nthe daemon said: ${d.log.slice(-2000)}`,
      };
    }

    const latest = async (name: string) => (await c.request('get_turn', { session: name })).turn;

    /** Resolves with the conversation request of `api` whose user text is `text`. */
    const receivedBy = (api: string, text: string, since: number) =>
      model.waitFor((r) => r.api === api && r.conversation && r.userText === text, {
        since,
        timeoutMs: ASK_TIMEOUT_S * 1000,
      });

    beforeAll(async () => {
      model = await startFakeModel({ respond: (r) => respond(agent, r) });
      fake = new FakeNotifySend();
      const daemonEnv = new DaemonEnv({ DISPLAY: ':99', PATH: fake.path() });
      const config = path.join(daemonEnv.env.XDG_CONFIG_HOME!, 'clippy');
      fs.mkdirSync(config, { recursive: true });
      fs.writeFileSync(
        path.join(config, 'config.json'),
        JSON.stringify({ pricing: { models: { [FAKE_MODEL]: PRICE } } }),
      );
      d = await TestDaemon.start({ env: daemonEnv });
      c = await d.connect();
      a = await startRealAgent(d, c, agent, model);
      claude = await startRealAgent(d, c, 'claude', model);
    }, START_MS);

    afterAll(async () => {
      await c?.close();
      await d?.stop();
      model?.releaseHanging();
      await model?.close();
      fake?.dispose();
      a?.dispose();
      claude?.dispose();
      for (const s of extra) s.dispose();
    }, SCENARIO_MS);

    it(
      'answers the first question asked the moment `clippy ls` says idle; `?` and every shortcut character reach the model',
      async () => {
        await untilListed(env(), a.name, ['idle'], START_MS);
        const r = await ask(a.name, SHORTCUTS);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(`Answer to a question of ${SHORTCUTS.length} characters.\n`);
        expect(received()).toEqual([SHORTCUTS]);
        const turn = await latest(a.name);
        expect(turn.text_source).toBe('agent');
        expect(turn.agent).toMatchObject({
          agent,
          input_tokens: 12,
          output_tokens: 10,
        });
      },
      START_MS + SCENARIO_MS,
    );

    it(
      'a two-line question is one message, answered once',
      async () => {
        const before = received().length;
        const r = await ask(a.name, TWO_LINES);
        expect(r.stderr).toBe('');
        expect(r.stdout).toBe(`Answer to a question of ${TWO_LINES.length} characters.\n`);
        expect(received().slice(before)).toEqual([TWO_LINES]);
      },
      SCENARIO_MS,
    );

    it(
      'ask prints the model’s Markdown exactly for every answer of the set (fences, tables, long lines, 300 lines)',
      async () => {
        for (const [key, answer] of Object.entries(MARKDOWN_ANSWERS)) {
          const r = await ask(a.name, askFor(key));
          expect(r.code, `${key}: ${r.stderr}`).toBe(0);
          expect(r.stdout, key).toBe(`${answer}\n`);
          const turn = await latest(a.name);
          expect(turn.text_source, key).toBe('agent');
          expect(turn.disagreement, key).toBeUndefined();
          // The screen's text is kept beside it, and is not the Markdown.
          expect(turn.screen_text).toBeDefined();
        }
        const { sessions } = await c.request('list_sessions', {});
        const s = sessions.find((x) => x.name === a.name)!;
        expect(s).toMatchObject({ agent, agent_channel: 'live' });
        expect(s.agent_session).toMatch(traits.sessionId);
        expect(s.output_tokens).toBeGreaterThan(0);
        // Cost beside tokens: the session's tokens at config.json's price for its model.
        expect(s.cost_unknown).toBeUndefined();
        expect(s.cost_usd).toBeCloseTo(
          (s.input_tokens! * PRICE.input + s.output_tokens! * PRICE.output) / 1e6,
          12,
        );
        const ls = await runClippy(['ls'], env());
        expect(ls.stdout.split('\n').find((l) => l.startsWith(`${a.name} `))).toMatch(
          /\$0\.\d+\s*$/u,
        );
        const turns = await runClippy(['turns', a.name, '-n', '1'], env());
        expect(turns.stdout).toMatch(/TOKENS\s+COST/u);
        expect(turns.stdout).toMatch(/\$0\.\d+/u);
      },
      SCENARIO_MS * 2,
    );

    it(
      'its permission question is `blocked`; `send --keys Enter` allows it and the turn ends with the answer',
      async () => {
        const asked = ask(a.name, 'Please create a file. APPROVE-ME');
        expect(await untilListed(env(), a.name, ['blocked'])).toBe('blocked');
        const keys = await runClippy(['send', a.name, '--keys', 'Enter'], env());
        expect(keys.code, keys.stderr).toBe(0);
        const r = await asked;
        expect(r.stderr).toBe('');
        expect(r.stdout).toBe('The command ran.\n');
        expect(fs.existsSync(path.join(a.cwd, 'approved.txt'))).toBe(true);
        expect(a.conversation().at(-1)?.toolResult).not.toBeNull();
      },
      SCENARIO_MS,
    );

    it(
      "interrupt presses the preset's keys, which stop a turn: `ask` prints it, flagged interrupted, read off the screen",
      async () => {
        const asked = ask(a.name, 'Think about it for long. HANG-ME', true);
        await model.waitFor(
          (r) => r.api === a.api && r.conversation && !!r.userText?.includes('HANG-ME'),
          { timeoutMs: ASK_TIMEOUT_S * 1000 },
        );
        await untilListed(env(), a.name, ['busy']);
        // Their presets' interruptKeys: OpenCode stops on a second Esc ("esc again to
        // interrupt"); Copilot CLI on one Ctrl-C (its "esc esc interrupt" wants the two Escs read
        // apart, which a loaded Copilot does not).
        expect(await c.request('interrupt', { session: a.name })).toEqual({
          keys: agent === 'opencode' ? ['Esc', 'Esc'] : ['C-c'],
        });
        const r = await asked;
        expect(r.stderr).toContain('was interrupted');
        expect(r.code).toBe(130);
        const turn = JSON.parse(r.stdout) as { interrupted: boolean; text_source: string };
        expect(turn.interrupted).toBe(true);
        expect(turn.text_source).toBe('screen');
        // It stopped: its screen says it no longer works, while the model's stream still hangs
        // (one the fake model ended would read as a server error, which an agent still working
        // retries).
        const deadline = Date.now() + ASK_TIMEOUT_S * 1000;
        while (/esc (?:esc |again to )?interrupt/u.test(await screenOf(env(), a.name)))
          if (Date.now() > deadline) throw new Error(await screenOf(env(), a.name));
        model.releaseHanging();
      },
      SCENARIO_MS,
    );

    it(
      `relay ${agent} → Claude Code and back: each model receives the other’s Markdown exactly`,
      async () => {
        await untilListed(env(), claude.name, ['idle'], START_MS);
        for (const [from, to, key, api] of [
          [a.name, claude.name, 'table', 'anthropic'],
          [claude.name, a.name, 'code', 'openai-chat'],
        ] as const) {
          const r = await ask(from, askFor(key));
          expect(r.stdout, r.stderr).toBe(`${MARKDOWN_ANSWERS[key]}\n`);
          const since = model.requests.length;
          const after = (await c.request('list_turns', { session: to, limit: 1 })).turns[0];
          const relayed = await runClippy(['relay', from, to], env(), ASK_TIMEOUT_S * 1000);
          expect(relayed.code, relayed.stderr).toBe(0);
          await receivedBy(api, MARKDOWN_ANSWERS[key]!, since);
          await c.request('wait_turn', {
            session: to,
            after: after?.turn_id ?? `${to}:0`,
            timeout_ms: ASK_TIMEOUT_S * 1000,
          });
        }
      },
      SCENARIO_MS * 2,
    );

    it(
      `loop ${agent} ⇄ Claude Code until LGTM: both directions arrive exactly`,
      async () => {
        const since = model.requests.length;
        let after = (await c.request('list_turns', { session: a.name, limit: 1 })).turns[0]
          ?.turn_id;
        const r = await runClippy(
          [
            'loop',
            a.name,
            claude.name,
            '--until',
            LOOP_DONE,
            '--rounds',
            '2',
            '--prompt',
            askFor('list'),
          ],
          env(),
        );
        expect(r.code, r.stderr).toBe(0);
        // A loop that stops says why in its log: the failure shows it.
        const said = async (err: unknown) => {
          const log = await runClippy(['route', 'log', 'loop1'], env());
          throw new Error(`${String(err)}\nclippy route log loop1:\n${log.stdout}${log.stderr}`);
        };
        await receivedBy('anthropic', MARKDOWN_ANSWERS.list!, since).catch(said);
        await receivedBy('openai-chat', MARKDOWN_ANSWERS.unicode!, since).catch(said);
        // Its answer to Claude's unicode answer ends the loop.
        for (;;) {
          const { turn } = await c.request('wait_turn', {
            session: a.name,
            after: after ?? `${a.name}:0`,
            timeout_ms: ASK_TIMEOUT_S * 1000,
          });
          after = turn.turn_id;
          if (turn.text === LOOP_DONE) break;
        }
      },
      SCENARIO_MS * 2,
    );

    it(
      'a turn nobody waited for: one desktop notification, unread in `clippy ls` until `clippy show`',
      async () => {
        await untilListed(env(), a.name, ['idle']);
        const before = fake.records().length;
        const turns = (await listed(env(), a.name))!.turn_count;
        const sent = await runClippy(['send', a.name, 'Anything new?', '--enter'], env());
        expect(sent.code, sent.stderr).toBe(0);
        // Nobody waits for it (a wait would read it): `clippy ls` says when it is done.
        const deadline = Date.now() + ASK_TIMEOUT_S * 1000;
        while ((await listed(env(), a.name))!.turn_count <= turns)
          if (Date.now() > deadline) throw new Error(`${a.name} completed no turn after ${turns}`);
        const row = (await runClippy(['ls'], env())).stdout
          .split('\n')
          .find((l) => l.startsWith(`${a.name} `));
        expect(row).toMatch(/ idle, 1 unread /u);
        const records = await fake.waitFor(before + 1);
        expect(records.slice(before).map((n) => n.title)).toEqual([`${a.name}: turn finished`]);
        const shown = await runClippy(['show', a.name], env());
        expect(shown.stdout).toBe('Answer to a question of 13 characters.\n');
        const again = (await runClippy(['ls'], env())).stdout
          .split('\n')
          .find((l) => l.startsWith(`${a.name} `));
        expect(again).not.toMatch(/unread/u);
      },
      SCENARIO_MS,
    );

    it(
      `with the channel off (--no-agent-channel), the text is the screen’s, without ${agent}’s chrome`,
      async () => {
        const s = prepareAgent(agent, model, { root: d.env.root });
        extra.push(s);
        const name = `${agent}-screen`;
        await c.request('spawn', {
          command: s.command,
          args: s.args,
          env: s.env,
          cwd: s.cwd,
          name,
          preset: s.preset,
          cols: 100,
          rows: 30,
          agent_channel: false,
        });
        await waitState(c, name, 'idle', START_MS);
        const r = await ask(name, askFor('list'));
        expect(r.code, r.stderr).toBe(0);
        const turn = await latest(name);
        expect(turn.text_source).toBe('screen');
        expect(turn.agent).toBeUndefined();
        // The answer's words, from its first line, without its bar, status line or footer.
        expect(r.stdout.startsWith('Steps:'), r.stdout).toBe(true);
        expect(r.stdout).toContain('Read the file.');
        expect(r.stdout).not.toMatch(traits.chrome);
        expect(r.stdout).not.toMatch(/Please give/u);
      },
      START_MS + SCENARIO_MS,
    );
  });

  describe.skipIf(agentsMissing(agent) !== null)(`${agent} comes back`, () => {
    it(
      `with persistence on, after a daemon restart, revive resumes its conversation through \`${traits.resume}\``,
      async () => {
        const model = await startFakeModel({ respond: (r) => respond(agent, r) });
        const env = new DaemonEnv();
        let d1: TestDaemon | null = await TestDaemon.start({ env });
        let d2: TestDaemon | null = null;
        const s = prepareAgent(agent, model, { root: env.root });
        try {
          const c1 = await d1.connect();
          await c1.request('spawn', {
            command: s.command,
            args: s.args,
            env: s.env,
            cwd: s.cwd,
            name: 'keep',
            preset: s.preset,
            persist: true,
            cols: 100,
            rows: 30,
          });
          await waitState(c1, 'keep', 'idle', START_MS);
          const first = await runClippy(
            ['ask', 'keep', askFor('code'), '--timeout', String(ASK_TIMEOUT_S)],
            env.env,
            (ASK_TIMEOUT_S + 30) * 1000,
          );
          expect(first.stdout, first.stderr).toBe(`${MARKDOWN_ANSWERS.code}\n`);
          const { turn: before } = await c1.request('get_turn', { session: 'keep' });
          expect(before.agent?.session_id).toMatch(traits.sessionId);
          await c1.close();
          expect((await runClippy(['daemon', 'stop'], env.env)).code).toBe(0);
          await d1.exited;
          d1 = null;

          d2 = await TestDaemon.start({ env });
          const c2 = await d2.connect();
          const listedKeep = (await c2.request('list_sessions', {})).sessions.find(
            (x) => x.name === 'keep',
          )!;
          expect(listedKeep).toMatchObject({ revivable: true, agent, restored: true });
          const shell = {
            ...s.env,
            ...Object.fromEntries(
              Object.entries(env.env).filter(([k]) => /^(XDG_R|CLIPPY)/u.test(k)),
            ),
          };
          const revived = await runClippy(['revive', 'keep', '-d', '--json'], shell);
          expect(revived.code, revived.stderr).toBe(0);
          expect(JSON.parse(revived.stdout)).toMatchObject({
            name: 'keep',
            args: [traits.resume, before.agent!.session_id, ...s.args],
          });
          await waitState(c2, 'keep', 'idle', START_MS);
          const since = model.requests.length;
          const second = await runClippy(
            ['ask', 'keep', askFor('table'), '--timeout', String(ASK_TIMEOUT_S)],
            env.env,
            (ASK_TIMEOUT_S + 30) * 1000,
          );
          expect(second.stdout, second.stderr).toBe(`${MARKDOWN_ANSWERS.table}\n`);
          const { turn } = await c2.request('get_turn', { session: 'keep' });
          expect(turn.seq).toBe(before.seq + 1);
          expect(turn.agent?.session_id).toBe(before.agent!.session_id);
          // Resumed: the model got the earlier exchange with the new question.
          const req = await model.waitFor(
            (r) => r.api === 'openai-chat' && r.conversation && r.userText === askFor('table'),
            { since },
          );
          expect(JSON.stringify(req.body)).toContain(askFor('code'));
          await c2.close();
        } finally {
          await d1?.stop();
          await d2?.stop();
          await model.close();
          s.dispose();
        }
      },
      START_MS * 2 + SCENARIO_MS,
    );
  });
}
