import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import { agentsMissing } from '@clippy/testkit/real-agents';
import {
  listed,
  startRealAgent,
  untilListed,
  type RealAgentSession,
  REAL_AGENT_ASK_S as ASK_TIMEOUT_S,
  REAL_AGENT_SCENARIO_MS as SCENARIO_MS,
} from '@clippy/testkit/real-agent-session';

// Issue 31: one real agent's turns into another's input — `relay`, `route add` and `loop
// --until` between Claude Code and Codex — asserting on the text the second agent's model
// received: exactly the first agent's turn.

const missing = agentsMissing('claude', 'codex');

/** What Codex's model answers to a text (the loop's test makes it end the loop). */
let codexReply = (text: string) => `Codex read ${text.length} characters.`;

/** The answers: Claude's are numbered; Codex's come from `codexReply`. */
function answerFor(r: ModelRequest, counts: Map<string, number>): Answer {
  const n = (counts.get(r.api) ?? 0) + 1;
  counts.set(r.api, n);
  if (r.api === 'anthropic') return { kind: 'text', text: `Claude's answer ${n}: 6 × 7 = 42.` };
  return { kind: 'text', text: codexReply(r.userText ?? '') };
}

describe.skipIf(missing !== null)('real agents hand turns to each other', () => {
  let d: TestDaemon;
  let c: ClippyClient;
  let model: FakeModel;
  let claude: RealAgentSession;
  let codex: RealAgentSession;
  const env = () => d.env.env;
  const clippy = (args: string[]) => runClippy(args, env(), (ASK_TIMEOUT_S + 30) * 1000);
  /** A session's turns so far (`clippy ls`). */
  const turnCount = async (name: string) => (await listed(env(), name))?.turn_count ?? 0;
  /** Waits (polling `clippy ls`) until the session completed more than `before` turns. */
  const untilTurns = async (name: string, before: number) => {
    const deadline = Date.now() + ASK_TIMEOUT_S * 1000;
    while ((await turnCount(name)) <= before) {
      if (Date.now() > deadline) throw new Error(`${name} completed no turn after ${before}`);
    }
  };
  /** A session's latest turn's text, as clippy stored it. */
  const latestText = async (name: string) => {
    const r = await clippy(['show', name]);
    expect(r.code).toBe(0);
    return r.stdout.replace(/\n$/, '');
  };

  beforeAll(async () => {
    const counts = new Map<string, number>();
    model = await startFakeModel({ respond: (r) => answerFor(r, counts) });
    d = await TestDaemon.start();
    c = await d.connect();
    claude = await startRealAgent(d, c, 'claude', model);
    codex = await startRealAgent(d, c, 'codex', model);
    await untilListed(env(), 'claude', ['idle']);
    await untilListed(env(), 'codex', ['idle']);
  }, SCENARIO_MS);

  afterAll(async () => {
    await c?.close();
    await d?.stop();
    await model?.close();
    claude?.dispose();
    codex?.dispose();
  }, SCENARIO_MS);

  it(
    "relay: Claude's latest turn reaches Codex's model exactly as its text",
    async () => {
      const asked = await clippy([
        'ask',
        'claude',
        'What is 6 × 7?',
        '--timeout',
        String(ASK_TIMEOUT_S),
      ]);
      expect(asked.code).toBe(0);
      const turn = await latestText('claude');
      // The agent's own answer (its channel, issue 32): no bullet of its screen.
      expect(turn).toBe("Claude's answer 1: 6 × 7 = 42.");
      const since = model.requests.length;
      const before = await turnCount('codex');
      const r = await clippy(['relay', 'claude', 'codex']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const got = await model.waitFor((q) => q.api === 'openai' && q.conversation, { since });
      expect(got.userText).toBe(turn);
      await untilTurns('codex', before);
      expect(await latestText('codex')).toBe(`Codex read ${turn.length} characters.`);
    },
    SCENARIO_MS,
  );

  it(
    "route add: each Claude turn goes to Codex by itself; Codex's model receives it",
    async () => {
      await untilListed(env(), 'codex', ['idle']);
      const added = await clippy(['route', 'add', 'claude', 'codex', '--name', 'r1']);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      const since = model.requests.length;
      const before = await turnCount('codex');
      const asked = await clippy([
        'ask',
        'claude',
        'And 7 × 6?',
        '--timeout',
        String(ASK_TIMEOUT_S),
      ]);
      expect(asked.code).toBe(0);
      const turn = await latestText('claude');
      const got = await model.waitFor(
        (q) => q.api === 'openai' && q.conversation && q.userText !== null,
        { since },
      );
      expect(got.userText).toBe(turn);
      await untilTurns('codex', before);
      expect((await clippy(['route', 'rm', 'r1'])).code).toBe(0);
    },
    SCENARIO_MS,
  );

  it(
    'loop --until: Claude and Codex take turns until Codex says LOOP-DONE; each model got the other’s turn',
    async () => {
      await untilListed(env(), 'claude', ['idle']);
      await untilListed(env(), 'codex', ['idle']);
      codexReply = () => 'Reviewed: LOOP-DONE.';
      const since = model.requests.length;
      const loop = await clippy([
        'loop',
        'claude',
        'codex',
        '--until',
        'LOOP-DONE',
        '--rounds',
        '3',
        '--name',
        'l1',
        '--prompt',
        'Start the LOOP with a sum.',
      ]);
      expect(loop.stderr).toBe('');
      expect(loop.code).toBe(0);
      const toClaude = await model.waitFor(
        (q) => q.api === 'anthropic' && q.conversation && q.userText !== null,
        { since },
      );
      expect(toClaude.userText).toBe('Start the LOOP with a sum.');
      const toCodex = await model.waitFor(
        (q) => q.api === 'openai' && q.conversation && q.userText !== null,
        { since },
      );
      const claudeTurn = await latestText('claude');
      expect(toCodex.userText).toBe(claudeTurn);
      // Codex's answer matches --until: the loop ends, nothing more goes back to Claude.
      const deadline = Date.now() + ASK_TIMEOUT_S * 1000;
      let log = '';
      while (!/ended/.test(log) && Date.now() < deadline) {
        log = (await clippy(['route', 'log', 'l1'])).stdout;
        if (!/ended/.test(log)) await new Promise((r) => setTimeout(r, 250));
      }
      expect(log).toMatch(/l1 ended .*matched --until/);
      expect(
        model.requests.filter((q) => q.seq > since && q.api === 'anthropic' && q.conversation),
      ).toHaveLength(1);
    },
    SCENARIO_MS,
  );
});
