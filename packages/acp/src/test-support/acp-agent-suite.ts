// `clippy acp` in front of a real agent CLI (pinned in packages/testkit/agents.json and installed
// outside node_modules by .ci/run), as an editor sees it: an ACP client of the protocol's SDK
// drives the real `clippy acp` process, which starts the agent in the real daemon against the
// fake model server. The agent is started once, by one `session/new`, for all its scenarios;
// they skip, saying why, when it is not installed. One test file per agent
// (acp-real-agents-AGENT.e2e.test.ts) runs this suite with what differs for its agent
// (`AcpAgentDifferences`), so that every agent is held to the same scenarios.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import type { ClippyClient } from '@clippy/client';
import { waitState } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
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
  type RealAgentName,
} from '@clippy/testkit/real-agents';
import {
  screenOf,
  turnWhy,
  REAL_AGENT_SCENARIO_MS as SCENARIO_MS,
} from '@clippy/testkit/real-agent-session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcpProcess } from './acp-process.js';

/** The answer streams in this many pieces, this far apart: the editor sees it grow. */
const PIECES = 6;
const PIECE_DELAY_MS = 400;
/** The file the approved tool call creates in the agent's project. */
const APPROVED_FILE = 'approved-from-the-editor.txt';
const TOOL_RAN = 'The command ran.';

/** What differs between agents in front of an editor (each field's default: most agents'). */
export interface AcpAgentDifferences {
  /**
   * The Markdown answer of the first prompt (default `list`). With `list`, the editor is also
   * shown the answer as it grows (its screen text, as thoughts).
   */
  firstAnswer?: 'list' | 'table';
  /** The answer after the approved tool ran is that line alone, not with words around it. */
  toolAnswerAlone?: boolean;
  /**
   * The editor cancels only once the session is `busy`: the agent sends its request a moment
   * before it draws its spinner, and an Esc before that is no interrupt on its screen (Qwen Code).
   */
  cancelWhenBusy?: boolean;
  /**
   * The prompt after a cancel reaches the model alone (default: it may carry the agent's note
   * that the previous request was interrupted, as Claude Code's does).
   */
  nextPromptAlone?: boolean;
}

/** What the fake model answers, from markers in the question (the same for every agent). */
function respond(agent: RealAgentName, r: ModelRequest): Answer | undefined {
  if (r.toolResult !== null) return { kind: 'text', text: TOOL_RAN };
  const text = r.userText ?? '';
  if (text.includes('APPROVE-ME')) return approvalToolCall(agent, `touch ${APPROVED_FILE}`);
  if (text.includes('HANG-ME')) return { kind: 'hang', text: 'Thinking it over' };
  const markdown = answerFor(text);
  if (markdown !== undefined)
    return { kind: 'text', text: markdown, pieces: PIECES, pieceDelayMs: PIECE_DELAY_MS };
  return { kind: 'text', text: `Answer to a question of ${text.length} characters.` };
}

/** The suite of `agent` through `clippy acp`, skipped (saying why) where it is not installed. */
export function acpAgentSuite(agent: RealAgentName, differences: AcpAgentDifferences = {}): void {
  const { firstAnswer = 'list', toolAnswerAlone, cancelWhenBusy, nextPromptAlone } = differences;
  const missing = agentsMissing(agent);
  if (missing) console.warn(`clippy acp with ${agent}: ${missing}`);

  describe.skipIf(missing !== null)(`${agent} through clippy acp`, () => {
    let model: FakeModel;
    let daemon: TestDaemon;
    let clippy: ClippyClient;
    let setup: AgentSetup;
    let acp: AcpProcess;
    let sessionId: string;
    /** The user texts this agent's model received, in order. */
    const received = () => setup.conversation().map((r) => r.userText);

    beforeAll(async () => {
      model = await startFakeModel({ respond: (r) => respond(agent, r) });
      daemon = await TestDaemon.start();
      clippy = await daemon.connect();
      setup = prepareAgent(agent, model, { root: daemon.env.root });
      // The editor's environment is the agent's (its temp HOME, its keys), with the test's daemon.
      const env = {
        ...setup.env,
        XDG_RUNTIME_DIR: daemon.env.env.XDG_RUNTIME_DIR!,
        CLIPPYD_PATH: daemon.env.env.CLIPPYD_PATH!,
      };
      acp = AcpProcess.start(['--preset', setup.preset, '--', setup.command, ...setup.args], env);
      await acp.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
        clientInfo: { name: 'test', version: '0' },
      });
      ({ sessionId } = await acp.agent.request(methods.agent.session.new, {
        cwd: setup.cwd,
        mcpServers: [],
      }));
    }, SCENARIO_MS);

    afterAll(async () => {
      // The editor closes its session: the agent it started ends (its leader killed by the daemon).
      if (acp && sessionId)
        await acp.agent.request(methods.agent.session.close, { sessionId }).catch(() => undefined);
      await acp?.stop();
      // Its HOME goes only once the agent has ended: an agent still exiting writes its state
      // there, and removing the tree under it failed once (ENOTEMPTY).
      if (sessionId) await waitState(clippy, sessionId, 'exited');
      await clippy?.close();
      await daemon?.stop();
      model?.releaseHanging();
      await model?.close();
      setup?.dispose();
    }, SCENARIO_MS);

    /** A prompt, with the agent's screen in the message when it fails. */
    async function prompt(text: string) {
      try {
        return await acp.prompt(sessionId, text);
      } catch (err) {
        throw new Error(
          `${String(err)}\nclippy acp said: ${acp.log}\n${await screenOf(daemon.env.env, sessionId)}`,
        );
      }
    }

    it(
      `the first prompt, sent while the agent starts: end_turn with the model's Markdown (${firstAnswer}) exactly${firstAnswer === 'list' ? ', streamed as it grows' : ''}`,
      async () => {
        const question = askFor(firstAnswer);
        const response = await prompt(question);
        expect(response.stopReason).toBe('end_turn');
        expect(received()).toEqual([question]);
        const { turn } = await clippy.request('get_turn', { session: sessionId });
        const { content: _c, text: _t, screen_text: _s, ...meta } = turn;
        const s = (await clippy.request('list_sessions', {})).sessions.find(
          (x) => x.session === sessionId,
        );
        const why = `${JSON.stringify(meta)}; its channel: ${s?.agent_channel} (${s?.channel_note ?? 'no note'}); screen text: ${JSON.stringify(turn.screen_text ?? turn.text)}`;
        // The agent's own answer (its channel), not the screen's rendering of it.
        expect(turn.text_source, why).toBe('agent');
        expect(turn.text).toBe(MARKDOWN_ANSWERS[firstAnswer]);
        // The editor's answer is that Markdown, one message.
        expect(acp.messages(sessionId).map((m) => m.text)).toEqual([MARKDOWN_ANSWERS[firstAnswer]]);
        if (firstAnswer !== 'list') return;
        // While it grew, the screen's text (which renders it: bullets for list markers, no bold)
        // streamed as the agent's thoughts.
        const done = acp.seen.findIndex((s) => s.kind === 'response');
        const thoughts = acp.seen
          .slice(0, done)
          .flatMap((s) =>
            s.kind === 'update' && s.notification.update.sessionUpdate === 'agent_thought_chunk'
              ? [s.notification.update.content]
              : [],
          );
        expect(thoughts.length).toBeGreaterThan(0);
        expect(thoughts.map((c) => (c.type === 'text' ? c.text : '')).join('')).toContain(
          'Read the file.',
        );
      },
      SCENARIO_MS,
    );

    it(
      "an approval dialog becomes request_permission with the agent's choices; the editor's Yes runs the tool",
      async () => {
        const before = acp.seen.filter((s) => s.kind === 'permission').length;
        acp.onPermission((request) => {
          const allow = request.options.find((o) => o.kind === 'allow_once')!;
          return { outcome: { outcome: 'selected', optionId: allow.optionId } };
        });
        const response = await prompt(`Please create a file. APPROVE-ME`);
        expect(response.stopReason).toBe('end_turn');
        const asked = acp.seen.flatMap((s) => (s.kind === 'permission' ? [s.request] : []));
        // Asked once: the dialog read half-way while the agent closes it after the answer
        // (Codex redraws its screen line by line) is not the question asked again.
        const mine = asked.slice(before);
        expect(mine).toHaveLength(1);
        // Read off the agent's own menu: a Yes for this once first, a way to say no.
        const kinds = mine[0]!.options.map((o) => o.kind);
        expect(kinds[0]).toBe('allow_once');
        expect(kinds.some((k) => k.startsWith('reject'))).toBe(true);
        expect(existsSync(join(setup.cwd, APPROVED_FILE))).toBe(true);
        expect(setup.conversation().at(-1)?.toolResult).not.toBeNull();
        const answer = acp.messages(sessionId).at(-1)!.text;
        if (toolAnswerAlone) expect(answer).toBe(TOOL_RAN);
        else expect(answer).toContain(TOOL_RAN);
      },
      SCENARIO_MS,
    );

    it(
      'session/cancel interrupts the agent: cancelled, the turn interrupted; the next prompt is answered',
      async () => {
        const answered = prompt('Think about it for long. HANG-ME');
        await model.waitFor(
          (r) => r.api === setup.api && r.conversation && !!r.userText?.includes('HANG-ME'),
        );
        if (cancelWhenBusy)
          await waitState(clippy, sessionId, 'busy').catch(async (err: unknown) => {
            const { turns } = await clippy.request('list_turns', { session: sessionId, limit: 3 });
            throw new Error(
              `${String(err)}\n${await screenOf(daemon.env.env, sessionId)}\n${JSON.stringify(turns)}`,
            );
          });
        await acp.agent.notify(methods.agent.session.cancel, { sessionId });
        expect((await answered).stopReason).toBe('cancelled');
        const { turn } = await clippy.request('get_turn', { session: sessionId });
        if (turn.interrupted !== true) {
          // Which turn is the latest, what its record says, and what the daemon did.
          const { turns } = await clippy.request('list_turns', { session: sessionId, limit: 3 });
          expect.fail(
            `the latest turn is not flagged interrupted: ${await turnWhy(clippy, sessionId, daemon, setup.home)}\nthe latest turns: ${JSON.stringify(turns)}`,
          );
        }
        model.releaseHanging();
        const next = 'And now a short one?';
        expect((await prompt(next)).stopReason).toBe('end_turn');
        if (nextPromptAlone) expect(received().at(-1)).toBe(next);
        else expect(received().at(-1)).toContain(next);
        const answer = `Answer to a question of ${received().at(-1)!.length} characters.`;
        // Seen once in CI: the cancelled turn's text came as this one's answer. What the turn's
        // record, its channel and the agent's record files said is what tells where it came from.
        if (acp.messages(sessionId).at(-1)!.text !== answer)
          expect.fail(
            `the answer after the cancel is ${JSON.stringify(acp.messages(sessionId).at(-1)!.text)}, not ${JSON.stringify(answer)}: ${await turnWhy(clippy, sessionId, daemon, setup.home)}`,
          );
      },
      SCENARIO_MS,
    );
  });
}
