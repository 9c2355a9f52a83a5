import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { runClippy, type ClippyRun } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import { agentsMissing, approvalToolCall, type RealAgentName } from '@clippy/testkit/real-agents';
import {
  listed,
  screenOf,
  startRealAgent,
  untilListed,
  type RealAgentSession,
  turnWhy,
  REAL_AGENT_ASK_S as ASK_TIMEOUT_S,
  REAL_AGENT_SCENARIO_MS as SCENARIO_MS,
} from '@clippy/testkit/real-agent-session';

// Issue 31: Claude Code, Codex and Gemini CLI from the npm registry (pinned in
// packages/testkit/agents.json, installed by .ci/run outside node_modules), driven through the
// real daemon and the real CLI against the fake model server, asserting on what the model
// received. Each agent is started once for its scenarios. One test file per agent
// (real-agents-AGENT.e2e.test.ts) runs this suite: vitest runs files side by side, so the three
// agents' few minutes each overlap instead of adding up.

/** The submit runs: 20 asks, each a few seconds (Gemini CLI up to 10 s on a loaded machine). */
const SUBMIT_RUNS_MS = 600_000;

/** One line with every character an agent may take as a shortcut: it must reach the model as is. */
const SHORTCUTS = 'What is 2+2? Reply with #1, @x, !y, /z, a \\ and $HOME, please.';
/** Asks of a two-line or a 300-line question per agent (alternating): every one submitted. */
const SUBMIT_RUNS = 20;
/** The nth question of the submit runs (each differs, so each is told apart in the request log). */
function submitQuestion(n: number): string {
  if (n % 2 === 0) return `Two lines, run ${n}:\nthe second one asks why?`;
  return Array.from(
    { length: 300 },
    (_, i) => `Line ${i + 1} of long question ${n}: what is ${i + 1}+${i + 1}?`,
  ).join('\n');
}
const LONG_ANSWER = Array.from({ length: 147 }, (_, i) => `line ${i + 1} of the long answer`);

/** What the fake model answers, from markers in the question (the same for every agent). */
function answerFor(agent: RealAgentName, r: ModelRequest): Answer | undefined {
  if (r.toolResult !== null) return { kind: 'text', text: 'The command ran.' };
  const text = r.userText ?? '';
  if (text.includes('APPROVE-ME')) return approvalToolCall(agent, 'touch approved.txt');
  if (text.includes('HANG-ME')) return { kind: 'hang', text: 'Thinking it over' };
  if (text.includes('LONG-ANSWER'))
    return { kind: 'text', text: LONG_ANSWER.join('\n'), pieces: 8 };
  return { kind: 'text', text: `Answer to a question of ${text.length} characters.` };
}

async function ask(env: NodeJS.ProcessEnv, name: string, text: string, json = false) {
  const args = ['ask', name, text, '--timeout', String(ASK_TIMEOUT_S), ...(json ? ['--json'] : [])];
  const r = await runClippy(args, env, (ASK_TIMEOUT_S + 30) * 1000);
  // A failed ask's message shows what the session showed then.
  return r.code === 0 ? r : { ...r, stderr: `${r.stderr}${await screenOf(env, name)}` };
}

/** Processes in the process group `pgid` (the session's: its leader's PID), from /proc. */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

/** The real-agent scenarios of `agent`, skipped (saying why) where its CLI is not installed. */
export function realAgentSuite(agent: RealAgentName): void {
  const missing = agentsMissing(agent);
  describe.skipIf(missing !== null)(`${agent}, the real CLI`, () => {
    let d: TestDaemon;
    let c: ClippyClient;
    let model: FakeModel;
    let a: RealAgentSession;
    const started: RealAgentSession[] = [];
    const env = () => d.env.env;
    /** The user texts this agent's model received, in order. */
    const received = () => a.conversation().map((r) => r.userText);

    beforeAll(async () => {
      model = await startFakeModel({ respond: (r) => answerFor(agent, r) });
      d = await TestDaemon.start();
      c = await d.connect();
      a = await startRealAgent(d, c, agent, model);
      started.push(a);
    }, SCENARIO_MS);

    afterAll(async () => {
      await c?.close();
      await d?.stop();
      await model?.close();
      for (const s of started) s.dispose();
    }, SCENARIO_MS);

    it(
      'answers the first question asked the moment `clippy ls` says idle; every shortcut character reaches the model',
      async () => {
        await untilListed(env(), a.name, ['idle']);
        const r = await ask(env(), a.name, SHORTCUTS);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        // The agent's own answer (its channel, issue 32): no bullet of its screen.
        expect(r.stdout.trim()).toBe(`Answer to a question of ${SHORTCUTS.length} characters.`);
        expect(received()).toEqual([SHORTCUTS]);
      },
      SCENARIO_MS,
    );

    it(
      `submits two-line and 300-line questions whole, each answered once (${SUBMIT_RUNS} asks)`,
      async () => {
        for (let n = 0; n < SUBMIT_RUNS; n++) {
          const question = submitQuestion(n);
          const before = received().length;
          const r = await ask(env(), a.name, question);
          expect(r.stderr).toBe('');
          expect(r.code).toBe(0);
          expect(r.stdout.trim()).toBe(`Answer to a question of ${question.length} characters.`);
          expect(received().slice(before)).toEqual([question]);
        }
      },
      SUBMIT_RUNS_MS,
    );

    it(
      'an approval dialog is `blocked`; `send --keys Enter` answers it and the turn ends with the answer',
      async () => {
        const asked = ask(env(), a.name, 'Please create a file. APPROVE-ME');
        expect(await untilListed(env(), a.name, ['blocked'])).toBe('blocked');
        const keys = await runClippy(['send', a.name, '--keys', 'Enter'], env());
        expect(keys.code).toBe(0);
        const r = await asked;
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toContain('The command ran.');
        expect(fs.existsSync(path.join(a.cwd, 'approved.txt'))).toBe(true);
        expect(a.conversation().at(-1)?.toolResult).not.toBeNull();
      },
      SCENARIO_MS,
    );

    it(
      'Esc stops a turn: `ask` prints it, flagged interrupted',
      async () => {
        const asked = ask(env(), a.name, 'Think about it for long. HANG-ME', true);
        await model.waitFor(
          (r) => r.api === a.api && r.conversation && !!r.userText?.includes('HANG-ME'),
        );
        await untilListed(env(), a.name, ['busy']);
        expect((await runClippy(['send', a.name, '--keys', 'Esc'], env())).code).toBe(0);
        const r: ClippyRun = await asked;
        // An interrupted turn: its text is printed, then said on stderr, exit 130 (as a shell).
        expect(r.stderr).toContain('was interrupted');
        expect(r.code).toBe(130);
        const turn = JSON.parse(r.stdout) as { interrupted: boolean; text: string };
        expect(turn.interrupted).toBe(true);
        expect(turn.text).toContain('Thinking it over');
        model.releaseHanging();
        await untilListed(env(), a.name, ['idle']);
      },
      SCENARIO_MS,
    );

    /**
     * Asks `s` for the long answer: `ask` prints every line (the agent's own record). The
     * screen's text keeps every line where the agent wrote them all to the terminal; an agent on
     * its alternate screen writes only what fits there, so its screen's text is the answer's
     * last lines, as the screen showed them.
     */
    async function longAnswer(s: RealAgentSession, screen: 'every line' | 'the last lines') {
      const r = await ask(env(), s.name, 'Answer at length. LONG-ANSWER');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toEqual(LONG_ANSWER);
      const { turn } = await c.request('get_turn', { session: s.name });
      expect(turn.text_source, await turnWhy(c, s.name, d, s.home)).toBe('agent');
      // Its bullet and indentation are chrome.
      const shown = await runClippy(['show', s.name, '--screen'], env());
      const lines = shown.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.trim());
      if (screen === 'every line') expect(lines).toEqual(LONG_ANSWER);
      else {
        expect(lines.length).toBeGreaterThan(0);
        expect(lines.length).toBeLessThan(LONG_ANSWER.length);
        expect(lines).toEqual(LONG_ANSWER.slice(-lines.length));
      }
    }

    // Codex draws on its alternate screen by default: the lines that scroll off it are never
    // written to the terminal. With `--no-alt-screen` it writes them all inline.
    it(
      "prints every line of a long answer on the agent's default screen; the screen's text keeps what it drew",
      async () => {
        await untilListed(env(), a.name, ['idle']);
        await longAnswer(a, agent === 'codex' ? 'the last lines' : 'every line');
      },
      SCENARIO_MS,
    );

    // Codex's own option (the others have no inline mode): defined for Codex alone, so that the
    // other agents' runs count no skipped test.
    if (agent === 'codex')
      it(
        "keeps every line of a long answer in the screen's text with --no-alt-screen",
        async () => {
          const inline = await startRealAgent(d, c, agent, model, {
            name: 'codex-inline',
            args: ['--no-alt-screen'],
          });
          started.push(inline);
          await untilListed(env(), inline.name, ['idle']);
          await longAnswer(inline, 'every line');
        },
        SCENARIO_MS,
      );

    it(
      'killed with SIGKILL: the session exits, a waiting `clippy wait` ends, nothing of it runs on',
      async () => {
        const waiting = runClippy(
          ['wait', a.name, '--timeout', String(ASK_TIMEOUT_S)],
          env(),
          (ASK_TIMEOUT_S + 30) * 1000,
        );
        await untilListed(env(), a.name, ['idle']);
        process.kill(a.pid, 'SIGKILL');
        const w = await waiting;
        expect(w.code).not.toBe(0);
        expect(w.stderr).toMatch(/exited/);
        expect((await listed(env(), a.name))?.state).toBe('exited');
        const deadline = Date.now() + 15_000;
        while (groupMembers(a.pid).length > 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        expect(groupMembers(a.pid)).toEqual([]);
      },
      SCENARIO_MS,
    );
  });
}
