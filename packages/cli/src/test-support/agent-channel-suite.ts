import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import { eventually } from '@clippy/testkit/until';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import { MARKDOWN_ANSWERS, answerFor, askFor } from '@clippy/testkit/markdown-answers';
import {
  AGENT_API,
  agentsMissing,
  approvalToolCall,
  prepareAgent,
  type AgentSetup,
  type RealAgentName,
} from '@clippy/testkit/real-agents';
import {
  listed,
  screenOf,
  startRealAgent,
  untilListed,
  turnWhy,
  untilListing,
  type RealAgentSession,
  REAL_AGENT_ASK_S as ASK_TIMEOUT_S,
  REAL_AGENT_SCENARIO_MS as SCENARIO_MS,
} from '@clippy/testkit/real-agent-session';

// Issues 32 and 45: each real agent (pinned in packages/testkit/agents.json, installed by .ci/run
// outside node_modules) under the real daemon and CLI against the fake model server, on one
// session of the agent for every check (revived after a daemon restart at the end), another
// agent beside it for relay, route and loop: its own record of its turns (hooks, transcript,
// rollout, chat or events file) gives `ask` the model's Markdown exactly, where the screen loses
// fences, list markers, table pipes and wraps long lines; the screen stays the fallback (channel
// off) and the source of interrupts. One test file per agent (agent-channels-AGENT.e2e.test.ts,
// real-agents-qwen/-opencode/-copilot) runs this suite with what differs for its agent as data
// (`AgentTraits`), so that the agents run side by side and are held to the same scenarios.

/** An agent's start (OpenCode: its TUI, its server, its plugins) on a loaded 2-core machine. */
const START_MS = 180_000;

/** Between two looks at a screen (`clippy snapshot`, a node process each) while it changes. */
const SCREEN_LOOK_MS = 250;

/** The price config.json gives the agent's model (USD per million tokens): each turn is priced. */
const PRICE = { input: 2, output: 8 };
/** What the fake model counts per call: 12 prompt and 10 answer tokens. */
const CALL_TOKENS = { input: 12, output: 10 };

/** One line with every character an agent may take as a shortcut: it must reach the model as is. */
const SHORTCUTS = 'What is 2+2? Reply with #1, @x, !y, /z, a \\ and $HOME, please.';
const TWO_LINES = 'Two lines, first:\nthe second one asks why?';
/** The loop's end: the agent's answer to its partner's answer to the list. */
const LOOP_DONE = 'LOOP DONE.';
/** What a model answers to an answer relayed to it: the loop's list → unicode → LOOP DONE. */
const RELAY_REPLIES = new Map<string, string>([
  [MARKDOWN_ANSWERS.list!, MARKDOWN_ANSWERS.unicode!],
  [MARKDOWN_ANSWERS.unicode!, LOOP_DONE],
]);
const TOOL_RAN = 'The command ran.';

/** What differs between agents, as their screens, records and command lines show it. */
export interface AgentTraits {
  /** Its own session IDs (`ses_…`, a UUID). */
  sessionId: RegExp;
  /** The agent beside it for relay, route and loop (another API: its requests told apart). */
  partner: RealAgentName;
  /** Its preset's `interruptKeys`, which `clippy interrupt` presses. */
  interruptKeys: string[];
  /** Its chrome, none of which is in a turn's screen text with the channel off. */
  chrome: RegExp;
  /**
   * The option that revives it with its conversation (`--resume ID`, `--session ID`,
   * `--session-id ID`); null where another file revives it (real-agents-life: Codex, Gemini).
   */
  resume: string | null;
  /**
   * The model it asks for, priced in the test's config.json: its turns have a cost. Null: its
   * requests name no model of their own here, so it is not priced.
   */
  pricedModel: string | null;
  /** That model as its record names it, where it differs (OpenCode's `provider/model`). */
  recordModel?: string;
  /** How its record says it read the turn (`turn.agent.via`), where a test pins it. */
  via?: string;
  /**
   * The question after an interrupt reaches the model alone (false: with the agent's note that
   * the previous request was interrupted, as Claude Code's does).
   */
  nextPromptAlone: boolean;
}

/** What the fake model answers, from markers in the question. */
function respond(agent: RealAgentName, r: ModelRequest): Answer | undefined {
  if (r.toolResult !== null) return { kind: 'text', text: TOOL_RAN };
  const text = r.userText ?? '';
  if (text.includes('APPROVE-ME')) return approvalToolCall(agent, 'touch approved.txt');
  if (text.includes('HANG-ME')) return { kind: 'hang', text: 'Thinking it over' };
  const markdown = answerFor(text) ?? RELAY_REPLIES.get(text);
  if (markdown !== undefined) return { kind: 'text', text: markdown, pieces: 6 };
  return { kind: 'text', text: `Answer to a question of ${text.length} characters.` };
}

/** A daemon environment whose config.json prices `model`, with a fake notify-send on PATH. */
function pricedEnv(model: string | null, notify: FakeNotifySend): DaemonEnv {
  const env = new DaemonEnv({ DISPLAY: ':99', PATH: notify.path() });
  const config = path.join(env.env.XDG_CONFIG_HOME!, 'clippy');
  fs.mkdirSync(config, { recursive: true });
  const models = model ? { [model]: PRICE } : {};
  fs.writeFileSync(path.join(config, 'config.json'), JSON.stringify({ pricing: { models } }));
  return env;
}

/** The suite of `agent`, skipped (saying why) where it or its partner is not installed. */
export function agentChannelSuite(agent: RealAgentName, traits: AgentTraits): void {
  const { partner } = traits;
  const missing = agentsMissing(agent, partner);
  if (missing) console.warn(`${agent} e2e tests ${missing}`);

  describe.skipIf(missing !== null)(`${agent}, the real CLI, its own answer`, () => {
    let model: FakeModel;
    let notify: FakeNotifySend;
    let d: TestDaemon;
    let c: ClippyClient;
    let a: RealAgentSession;
    let b: RealAgentSession;
    const extra: AgentSetup[] = [];
    const env = () => d.env.env;
    /** The user texts this agent's model received, in order. */
    const received = () => a.conversation().map((r) => r.userText);

    /** `clippy ask`; a failed one's stderr also says what the session showed and the model got. */
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

    /** What a failed exact-text check needs said: the turn's record, the channel, the log. */
    const why = (name: string) => turnWhy(c, name, d, [a, b].find((s) => s?.name === name)?.home);

    /** Resolves with the conversation request of `who`'s model whose user text is `text`. */
    const receivedBy = (who: RealAgentName, text: string, since: number) =>
      model.waitFor((r) => r.api === AGENT_API[who] && r.conversation && r.userText === text, {
        since,
        timeoutMs: ASK_TIMEOUT_S * 1000,
      });

    /** Waits for the turn of `name` after `after` (its latest before a step typed into it). */
    const turnAfter = (name: string, after: string | undefined) =>
      c.request('wait_turn', {
        session: name,
        after: after ?? `${name}:0`,
        timeout_ms: ASK_TIMEOUT_S * 1000,
      });
    const lastTurnId = async (name: string) =>
      (await c.request('list_turns', { session: name, limit: 1 })).turns[0]?.turn_id;

    /** Waits until `clippy ls` lists more than `turns` turns of the agent (a turn nobody read). */
    const turnListed = (turns: number) =>
      untilListing(
        env(),
        a.name,
        (s) => (s && s.turn_count > turns ? s : undefined),
        (s) => `${a.name} completed no turn after ${turns} (listed: ${JSON.stringify(s)})`,
        ASK_TIMEOUT_S * 1000,
      );

    /** The row of `clippy ls` of session `name`. */
    const lsRow = async (name: string) =>
      (await runClippy(['ls'], env())).stdout.split('\n').find((l) => l.startsWith(`${name} `));

    /** A session's cost, or why it has none (`no price for model …`): never nothing. */
    async function costOrWhy(name: string) {
      const s = (await c.request('list_sessions', {})).sessions.find((x) => x.name === name)!;
      if (s.cost_usd !== undefined) {
        expect(s.cost_unknown).toBeUndefined();
        expect(await lsRow(name)).toMatch(/\$\d+\.\d+\s*$/u);
      } else {
        expect(s.cost_unknown).toMatch(/^no price for model /u);
        expect(await lsRow(name)).toMatch(/no price\s*$/u);
      }
    }

    beforeAll(async () => {
      model = await startFakeModel({ respond: (r) => respond(agent, r) });
      notify = new FakeNotifySend();
      d = await TestDaemon.start({ env: pricedEnv(traits.pricedModel, notify) });
      c = await d.connect();
      // Persisted: the file's last scenario revives it after a daemon restart.
      a = await startRealAgent(d, c, agent, model, { persist: traits.resume !== null });
      b = await startRealAgent(d, c, partner, model);
    }, START_MS);

    afterAll(async () => {
      await c?.close();
      await d?.stop();
      model?.releaseHanging();
      await model?.close();
      notify?.dispose();
      a?.dispose();
      b?.dispose();
      for (const s of extra) s.dispose();
    }, SCENARIO_MS);

    it(
      'answers the first question asked the moment `clippy ls` says idle; every shortcut character reaches the model; a two-line question is one message, answered once',
      async () => {
        await untilListed(env(), a.name, ['idle'], START_MS);
        const r = await ask(a.name, SHORTCUTS);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        // The agent's own answer (its channel): no bullet of its screen.
        expect(r.stdout).toBe(`Answer to a question of ${SHORTCUTS.length} characters.\n`);
        expect(received()).toEqual([SHORTCUTS]);
        const turn = await latest(a.name);
        // A first answer read off the screen says why in its record's note.
        expect(turn.text_source, await why(a.name)).toBe('agent');
        expect(turn.agent).toMatchObject({
          agent,
          input_tokens: CALL_TOKENS.input,
          output_tokens: CALL_TOKENS.output,
        });
        const two = await ask(a.name, TWO_LINES);
        expect(two.stderr).toBe('');
        expect(two.stdout).toBe(`Answer to a question of ${TWO_LINES.length} characters.\n`);
        expect(received()).toEqual([SHORTCUTS, TWO_LINES]);
      },
      START_MS + SCENARIO_MS,
    );

    it(
      'ask prints the model’s Markdown exactly for every answer of the set (fences, tables, long lines, 300 lines); the turn says its source',
      async () => {
        for (const [key, answer] of Object.entries(MARKDOWN_ANSWERS)) {
          const r = await ask(a.name, askFor(key));
          expect(r.code, `${key}: ${r.stderr}`).toBe(0);
          expect(r.stdout, `${key}: ${await why(a.name)}`).toBe(`${answer}\n`);
          const turn = await latest(a.name);
          expect(turn.text_source, `${key}: ${await why(a.name)}`).toBe('agent');
          expect(turn.agent).toMatchObject({
            agent,
            ...(traits.via ? { via: traits.via } : {}),
            ...(traits.pricedModel ? { model: traits.recordModel ?? traits.pricedModel } : {}),
          });
          expect(turn.agent?.session_id).toMatch(traits.sessionId);
          // The agent's record and the screen agree on the turn (issue 31: a screen that looked
          // done before the agent was is said on the turn as a disagreement).
          expect(turn.disagreement, key).toBeUndefined();
          // The screen's text is kept beside it, and is not the Markdown (the point of it all).
          expect(turn.screen_text).toBeDefined();
        }
      },
      SCENARIO_MS * 2,
    );

    it('ls --json shows the channel live, the agent session, tokens and their cost; turns shows them per turn', async () => {
      const { sessions } = await c.request('list_sessions', {});
      const s = sessions.find((x) => x.name === a.name)!;
      expect(s).toMatchObject({ agent, agent_channel: 'live' });
      expect(s.agent_session).toMatch(traits.sessionId);
      expect(s.output_tokens).toBeGreaterThan(0);
      expect(await lsRow(a.name)).toBeDefined();
      if (!traits.pricedModel) {
        await costOrWhy(a.name);
        return;
      }
      // Every call of its model counted: the fake model's tokens, at config.json's price.
      expect(s.input_tokens! % CALL_TOKENS.input).toBe(0);
      expect(s.output_tokens).toBe((s.input_tokens! / CALL_TOKENS.input) * CALL_TOKENS.output);
      expect(s.cost_unknown).toBeUndefined();
      expect(s.cost_usd).toBeCloseTo(
        (s.input_tokens! * PRICE.input + s.output_tokens! * PRICE.output) / 1e6,
        12,
      );
      expect((await runClippy(['ls'], env())).stdout).toMatch(/COST/u);
      expect(await lsRow(a.name)).toMatch(/\$0\.\d+\s*$/u);
      const turns = await runClippy(['turns', a.name, '-n', '1'], env());
      expect(turns.stdout).toMatch(/TOKENS\s+COST/u);
      expect(turns.stdout).toMatch(/12\/10\s+\$0\.00010\b/u);
    });

    it(
      'an approval dialog is `blocked` and notified once; `send --keys Enter` answers it; the answer is unread until shown',
      async () => {
        await untilListed(env(), a.name, ['idle']);
        const before = notify.records().length;
        const turns = (await listed(env(), a.name))!.turn_count;
        const sent = await runClippy(
          ['send', a.name, 'Please create a file. APPROVE-ME', '--enter'],
          env(),
        );
        expect(sent.code, sent.stderr).toBe(0);
        expect(await untilListed(env(), a.name, ['blocked'], ASK_TIMEOUT_S * 1000)).toBe('blocked');
        const keys = await runClippy(['send', a.name, '--keys', 'Enter'], env());
        expect(keys.code, keys.stderr).toBe(0);
        // Its turn completes (seen with `ls`: a `wait` or `ask` would read it).
        await turnListed(turns);
        const turn = await latest(a.name);
        expect(turn.text, await why(a.name)).toBe(TOOL_RAN);
        expect(fs.existsSync(path.join(a.cwd, 'approved.txt'))).toBe(true);
        expect(a.conversation().at(-1)?.toolResult).not.toBeNull();
        // Nobody read it yet: unread in ls, and the desktop was told it asked, then that it finished.
        expect(await lsRow(a.name)).toMatch(/idle, 1 unread/u);
        await notify.waitFor(before + 2, ASK_TIMEOUT_S * 1000);
        const records = notify.records().slice(before);
        const told = records.map((n) => n.title);
        // Each notification whole in the failure: which draw of the dialog was told twice.
        const said = records.map((n) => `${n.title}: ${n.body}`).join('\n');
        expect(
          told.filter((t) => t === `${a.name} needs you`),
          said,
        ).toHaveLength(1);
        expect(told.indexOf(`${a.name} needs you`)).toBeLessThan(
          told.lastIndexOf(`${a.name}: turn finished`),
        );
        expect((await runClippy(['show', a.name], env())).stdout).toBe(`${TOOL_RAN}\n`);
        expect(await lsRow(a.name)).not.toMatch(/unread/u);
      },
      SCENARIO_MS,
    );

    it(
      "interrupt presses the preset's keys, which stop a turn: `ask` prints it, flagged interrupted, read off the screen; the next question is answered",
      async () => {
        await untilListed(env(), a.name, ['idle']);
        const asked = ask(a.name, 'Think about it for long. HANG-ME', true);
        await model.waitFor(
          (r) => r.api === a.api && r.conversation && !!r.userText?.includes('HANG-ME'),
          { timeoutMs: ASK_TIMEOUT_S * 1000 },
        );
        await untilListed(env(), a.name, ['busy']);
        expect(await c.request('interrupt', { session: a.name })).toEqual({
          keys: traits.interruptKeys,
        });
        const r = await asked;
        // An interrupted turn: its text is printed, then said on stderr, exit 130 (as a shell).
        expect(r.stderr).toContain('was interrupted');
        expect(r.code).toBe(130);
        const turn = JSON.parse(r.stdout) as {
          interrupted: boolean;
          text: string;
          text_source: string;
        };
        expect(turn.interrupted).toBe(true);
        // No hook reports an interrupt: the screen's text.
        expect(turn.text_source).toBe('screen');
        expect(turn.text).toContain('Thinking it over');
        // It stopped: its screen says it no longer works, while the model's stream still hangs
        // (one the fake model ended would read as a server error, which an agent still working
        // retries).
        await eventually(
          async () => !/esc (?:esc |again to |to )?interrupt/u.test(await screenOf(env(), a.name)),
          () => screenOf(env(), a.name),
          ASK_TIMEOUT_S * 1000,
          SCREEN_LOOK_MS,
        );
        model.releaseHanging();
        await untilListed(env(), a.name, ['idle']);
        const next = 'And a short one?';
        const answered = await ask(a.name, next);
        expect(answered.code, answered.stderr).toBe(0);
        if (traits.nextPromptAlone) expect(received().at(-1)).toBe(next);
        else expect(received().at(-1)).toContain(next);
        expect(answered.stdout).toBe(
          `Answer to a question of ${received().at(-1)!.length} characters.\n`,
        );
      },
      SCENARIO_MS,
    );

    it(
      `relay ${agent} → ${partner} and back: each model receives the other’s Markdown exactly`,
      async () => {
        await untilListed(env(), b.name, ['idle'], START_MS);
        for (const [from, to, key] of [
          [a, b, 'table'],
          [b, a, 'code'],
        ] as const) {
          const r = await ask(from.name, askFor(key));
          expect(r.stdout, `${r.stderr}\n${await why(from.name)}`).toBe(
            `${MARKDOWN_ANSWERS[key]}\n`,
          );
          const since = model.requests.length;
          const after = await lastTurnId(to.name);
          const relayed = await runClippy(
            ['relay', from.name, to.name],
            env(),
            ASK_TIMEOUT_S * 1000,
          );
          expect(relayed.code, relayed.stderr).toBe(0);
          await receivedBy(to.agent, MARKDOWN_ANSWERS[key]!, since);
          // Its answer completes before the next step types into it.
          await turnAfter(to.name, after);
        }
      },
      SCENARIO_MS * 2,
    );

    it(
      `route add ${agent} → ${partner}: a turn of ${agent} reaches ${partner}'s model by itself, exactly`,
      async () => {
        const name = `r-${agent}-${partner}`;
        const added = await runClippy(['route', 'add', a.name, b.name, '--name', name], env());
        expect(added.code, added.stderr).toBe(0);
        try {
          const since = model.requests.length;
          const after = await lastTurnId(b.name);
          const r = await ask(a.name, askFor('long'));
          // An ask that ended without its answer says why (its screen, the model's requests).
          expect(r.code, `${r.stderr}\n${await why(a.name)}`).toBe(0);
          expect(r.stdout, await why(a.name)).toBe(`${MARKDOWN_ANSWERS.long}\n`);
          await receivedBy(partner, MARKDOWN_ANSWERS.long!, since);
          await turnAfter(b.name, after);
        } finally {
          expect((await runClippy(['route', 'rm', name], env())).code).toBe(0);
        }
      },
      SCENARIO_MS * 2,
    );

    it(
      `loop ${agent} ⇄ ${partner} --until: both directions arrive exactly; ${agent}'s end line ends it`,
      async () => {
        const since = model.requests.length;
        let after = await lastTurnId(a.name);
        const loopName = 'review';
        const r = await runClippy(
          [
            'loop',
            a.name,
            b.name,
            '--until',
            LOOP_DONE,
            '--rounds',
            '2',
            '--name',
            loopName,
            '--prompt',
            askFor('list'),
          ],
          env(),
        );
        expect(r.code, r.stderr).toBe(0);
        // A loop that stops says why in its log: the failure shows it.
        const log = async () => {
          const l = await runClippy(['route', 'log', loopName], env());
          return `${l.stdout}${l.stderr}`;
        };
        const said = async (err: unknown) => {
          throw new Error(`${String(err)}\nclippy route log ${loopName}:\n${await log()}`);
        };
        expect((await receivedBy(agent, askFor('list'), since).catch(said)).userText).toBe(
          askFor('list'),
        );
        await receivedBy(partner, MARKDOWN_ANSWERS.list!, since).catch(said);
        await receivedBy(agent, MARKDOWN_ANSWERS.unicode!, since).catch(said);
        // Its answer to the partner's unicode answer ends the loop.
        for (;;) {
          const { turn } = await turnAfter(a.name, after);
          after = turn.turn_id;
          if (turn.text === LOOP_DONE) break;
        }
        let said_ = await log();
        const deadline = Date.now() + ASK_TIMEOUT_S * 1000;
        while (!/ended/u.test(said_) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          said_ = await log();
        }
        expect(said_).toMatch(new RegExp(`${loopName} ended .*matched --until`, 'u'));
        // The end line went nowhere: the partner's model got the list alone.
        expect(
          model.requests.filter(
            (q) => q.seq > since && q.api === AGENT_API[partner] && q.conversation,
          ),
        ).toHaveLength(1);
        // The partner's model is priced in no config here: its cost says why, rather than nothing.
        await costOrWhy(b.name);
      },
      SCENARIO_MS * 2,
    );

    it(
      'a turn nobody waited for: one desktop notification, unread in `clippy ls` until `clippy show`',
      async () => {
        await untilListed(env(), a.name, ['idle']);
        const before = notify.records().length;
        const turns = (await listed(env(), a.name))!.turn_count;
        const sent = await runClippy(['send', a.name, 'Anything new?', '--enter'], env());
        expect(sent.code, sent.stderr).toBe(0);
        // Nobody waits for it (a wait would read it): `clippy ls` says when it is done.
        await turnListed(turns);
        expect(await lsRow(a.name)).toMatch(/ idle, 1 unread /u);
        const records = await notify.waitFor(before + 1);
        expect(records.slice(before).map((n) => n.title)).toEqual([`${a.name}: turn finished`]);
        const shown = await runClippy(['show', a.name], env());
        expect(shown.stdout).toBe('Answer to a question of 13 characters.\n');
        expect(await lsRow(a.name)).not.toMatch(/unread/u);
      },
      SCENARIO_MS,
    );

    const channelOff = `with the channel off (--no-agent-channel), the text is the screen’s, without ${agent}’s chrome`;
    it(
      channelOff,
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
        const { sessions } = await c.request('list_sessions', {});
        expect(sessions.find((x) => x.name === name)!.agent_channel).toBeUndefined();
        // The answer's words, from its first line, without its bullets, status lines and hints.
        // (Codex draws the answer's own list items with • too: those stay.)
        expect(r.stdout.startsWith('Steps:'), r.stdout).toBe(true);
        expect(r.stdout).toContain('Read the file.');
        expect(r.stdout).not.toMatch(traits.chrome);
        expect(r.stdout).not.toMatch(/Please give/u);
        // Emoji take two cells on the agent's screen, as in the user's terminal: the screen's
        // text holds the model's line as written (Codex's showed a gap after each emoji).
        const u = await ask(name, askFor('unicode'));
        expect(u.code, u.stderr).toBe(0);
        expect(u.stdout).toContain(MARKDOWN_ANSWERS.unicode!.split('\n')[0]!);
      },
      START_MS + SCENARIO_MS,
    );

    const resume = traits.resume;
    // Another file revives it (resume null): no scenario of it here. Last of the file: it
    // restarts the daemon the agent runs under, and revives that same agent (one start less
    // than an agent of its own: OpenCode's is some 15 CPU-s).
    if (resume !== null)
      it(
        `with persistence on, after a daemon restart, ls -a offers the exited session and revive resumes its conversation through \`${resume}\`: same name, numbering and agent session`,
        async () => {
          await untilListed(env(), a.name, ['idle']);
          const first = await ask(a.name, askFor('code'));
          expect(first.stdout, first.stderr).toBe(`${MARKDOWN_ANSWERS.code}\n`);
          const before = await latest(a.name);
          expect(before.agent?.session_id).toMatch(traits.sessionId);
          await c.close();
          expect((await runClippy(['daemon', 'stop'], env())).code).toBe(0);
          await d.exited;

          d = await TestDaemon.start({ env: d.env });
          c = await d.connect();
          const ls = await runClippy(['ls', '-a'], env());
          expect(ls.stderr).toContain(`clippy revive ${a.name}`);
          const listedA = (await c.request('list_sessions', {})).sessions.find(
            (x) => x.name === a.name,
          )!;
          expect(listedA).toMatchObject({ revivable: true, agent, restored: true });
          // From the user's shell as before the restart: the agent's home and settings (revive
          // sends the CLI's environment, as `new` does), with this test's clippy folders.
          const shell = {
            ...a.env,
            ...Object.fromEntries(
              Object.entries(env()).filter(([k]) => /^(XDG_R|CLIPPY)/u.test(k)),
            ),
          };
          const revived = await runClippy(['revive', a.name, '-d', '--json'], shell);
          expect(revived.code, revived.stderr).toBe(0);
          expect(JSON.parse(revived.stdout)).toMatchObject({
            session: listedA.session,
            name: a.name,
            args: [resume, before.agent!.session_id, ...a.args],
          });
          await waitState(c, a.name, 'idle', START_MS);
          const since = model.requests.length;
          const second = await ask(a.name, askFor('table'));
          expect(second.stdout, second.stderr).toBe(`${MARKDOWN_ANSWERS.table}\n`);
          const turn = await latest(a.name);
          expect(turn.seq).toBe(before.seq + 1);
          expect(turn.turn_id).toBe(`${before.session}:${before.seq + 1}`);
          expect(turn.agent?.session_id).toBe(before.agent!.session_id);
          // Resumed: the model got the earlier exchange with the new question.
          const req = await model.waitFor(
            (r) => r.api === a.api && r.conversation && r.userText === askFor('table'),
            { since },
          );
          expect(JSON.stringify(req.body)).toContain(askFor('code'));
        },
        START_MS + SCENARIO_MS,
      );
  });
}
