// `clippy acp` in front of the real Qwen Code (pinned in packages/testkit/agents.json, installed
// outside node_modules by .ci/run), as an editor sees it: an ACP client of the protocol's SDK
// drives the real `clippy acp` process, which starts Qwen Code in the real daemon against the
// fake model server (OpenAI Chat Completions). One `session/new` serves every scenario, as in
// acp-real-agents.e2e.test.ts for the agents before it; skipped, saying why, when Qwen Code is
// not installed.
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
} from '@clippy/testkit/real-agents';
import { screenOf } from '@clippy/testkit/real-agent-session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcpProcess } from './test-support/acp-process.js';

/** Qwen Code's start and a few turns on a loaded 2-core machine. */
const SCENARIO_MS = 300_000;
/** The answer streams in this many pieces, this far apart: the editor sees it grow. */
const PIECES = 6;
const PIECE_DELAY_MS = 400;
const APPROVED_FILE = 'approved-from-the-editor.txt';
const TOOL_RAN = 'The command ran.';

function respond(r: ModelRequest): Answer | undefined {
  if (r.toolResult !== null) return { kind: 'text', text: TOOL_RAN };
  const text = r.userText ?? '';
  if (text.includes('APPROVE-ME')) return approvalToolCall('qwen', `touch ${APPROVED_FILE}`);
  if (text.includes('HANG-ME')) return { kind: 'hang', text: 'Thinking it over' };
  const markdown = answerFor(text);
  if (markdown !== undefined)
    return { kind: 'text', text: markdown, pieces: PIECES, pieceDelayMs: PIECE_DELAY_MS };
  return { kind: 'text', text: `Answer to a question of ${text.length} characters.` };
}

const missing = agentsMissing('qwen');
if (missing) console.warn(`clippy acp with Qwen Code: ${missing}`);

describe.skipIf(missing !== null)('qwen through clippy acp', () => {
  let model: FakeModel;
  let daemon: TestDaemon;
  let clippy: ClippyClient;
  let setup: AgentSetup;
  let acp: AcpProcess;
  let sessionId: string;
  const received = () => setup.conversation().map((r) => r.userText);

  beforeAll(async () => {
    model = await startFakeModel({ respond });
    daemon = await TestDaemon.start();
    clippy = await daemon.connect();
    setup = prepareAgent('qwen', model, { root: daemon.env.root });
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
    if (acp && sessionId)
      await acp.agent.request(methods.agent.session.close, { sessionId }).catch(() => undefined);
    await acp?.stop();
    // Its HOME goes only once Qwen Code has ended (it writes its state there as it exits).
    if (sessionId) await waitState(clippy, sessionId, 'exited');
    await clippy?.close();
    await daemon?.stop();
    model?.releaseHanging();
    await model?.close();
    setup?.dispose();
  }, SCENARIO_MS);

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
    "the first prompt, sent while Qwen Code starts: end_turn with the model's Markdown exactly",
    async () => {
      const question = askFor('table');
      const response = await prompt(question);
      expect(response.stopReason).toBe('end_turn');
      expect(received()).toEqual([question]);
      const { turn } = await clippy.request('get_turn', { session: sessionId });
      const { content: _c, text: _t, screen_text: _s, ...meta } = turn;
      const s = (await clippy.request('list_sessions', {})).sessions.find(
        (x) => x.session === sessionId,
      );
      const why = `${JSON.stringify(meta)}; its channel: ${s?.agent_channel} (${s?.channel_note ?? 'no note'}); screen text: ${JSON.stringify(turn.screen_text ?? turn.text)}`;
      expect(turn.text_source, why).toBe('agent');
      expect(turn.text).toBe(MARKDOWN_ANSWERS.table);
      expect(acp.messages(sessionId).map((m) => m.text)).toEqual([MARKDOWN_ANSWERS.table]);
    },
    SCENARIO_MS,
  );

  it(
    "an approval dialog becomes request_permission with Qwen Code's choices; the editor's Yes runs the tool",
    async () => {
      const before = acp.seen.filter((s) => s.kind === 'permission').length;
      acp.onPermission((request) => {
        const allow = request.options.find((o) => o.kind === 'allow_once')!;
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      });
      const response = await prompt('Please create a file. APPROVE-ME');
      expect(response.stopReason).toBe('end_turn');
      const asked = acp.seen.flatMap((s) => (s.kind === 'permission' ? [s.request] : []));
      const mine = asked.slice(before);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.options.map((o) => o.kind)[0]).toBe('allow_once');
      expect(mine[0]!.options.some((o) => o.kind.startsWith('reject'))).toBe(true);
      expect(existsSync(join(setup.cwd, APPROVED_FILE))).toBe(true);
      expect(acp.messages(sessionId).at(-1)!.text).toBe(TOOL_RAN);
    },
    SCENARIO_MS,
  );

  it(
    'session/cancel interrupts Qwen Code: cancelled, the turn interrupted; the next prompt is answered alone',
    async () => {
      const answered = prompt('Think about it for long. HANG-ME');
      await model.waitFor(
        (r) => r.api === setup.api && r.conversation && !!r.userText?.includes('HANG-ME'),
      );
      // The editor cancels what it sees working: Qwen Code sends the request a moment before it
      // draws its spinner, and an Esc before that is not yet an interrupt on its screen.
      await waitState(clippy, sessionId, 'busy').catch(async (err: unknown) => {
        const { turns } = await clippy.request('list_turns', { session: sessionId, limit: 3 });
        throw new Error(
          `${String(err)}\n${await screenOf(daemon.env.env, sessionId)}\n${JSON.stringify(turns)}`,
        );
      });
      await acp.agent.notify(methods.agent.session.cancel, { sessionId });
      expect((await answered).stopReason).toBe('cancelled');
      const { turn } = await clippy.request('get_turn', { session: sessionId });
      expect(turn.interrupted).toBe(true);
      model.releaseHanging();
      const next = 'And now a short one?';
      expect((await prompt(next)).stopReason).toBe('end_turn');
      expect(received().at(-1)).toBe(next);
      expect(acp.messages(sessionId).at(-1)!.text).toBe(
        `Answer to a question of ${next.length} characters.`,
      );
    },
    SCENARIO_MS,
  );
});
