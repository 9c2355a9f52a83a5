// One agent asks another through clippy, by itself: the real Claude Code and Codex (pinned in
// packages/testkit/agents.json, installed outside node_modules by .ci/run), each registered
// with `clippy mcp` by the one command `clippy mcp config AGENT` prints, run in its own temp
// HOME. The fake model answers a marked question with a tool call to clippy's `ask` (of a bash
// session, of the other agent), then quotes the tool's result: the quoted text must be that
// session's exact answer as clippy stored it. Each agent's model also sees its own session
// refused. They skip, saying why, when the agents are not installed.
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import type { ClippyClient } from '@clippy/client';
import type { Turn } from '@clippy/protocol';
import { askTurn, spawnProgram, waitState } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import {
  startFakeModel,
  type Answer,
  type FakeModel,
  type ModelRequest,
} from '@clippy/testkit/fake-model/server';
import { MARKDOWN_ANSWERS } from '@clippy/testkit/markdown-answers';
import { bins } from '@clippy/testkit/paths';
import { agentsMissing, prepareAgent, type AgentSetup } from '@clippy/testkit/real-agents';
import {
  screenOf,
  REAL_AGENT_SCENARIO_MS as SCENARIO_MS,
} from '@clippy/testkit/real-agent-session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A turn of a real agent that calls a tool, which waits for another agent's turn. */
const TURN_MS = 120_000;
/**
 * An agent connects its MCP servers while it starts, and may take its first question before
 * clippy's tools are there: the model then says so (TOOLS_NOT_READY) and the question is asked
 * again, at most this many times.
 */
const TOOL_TRIES = 10;
const TOOLS_NOT_READY = 'TOOLS-NOT-READY';

/** What each agent's model calls clippy's `ask` (Codex: a function of the namespace). */
const ASK = {
  claude: { name: 'mcp__clippy__ask' },
  codex: { name: 'ask', namespace: 'mcp__clippy' },
} as const;

/** The bash commands each agent has asked; and the question put to Codex by Claude. */
const CLAUDE_SH = "printf 'asked by claude:\\n  %s\\n' 'two  spaces'";
const CODEX_SH = 'printf \'asked by codex: %s\\n\' "$((6 * 7))"';
const CODEX_QUESTION = 'CODEX-QUESTION: how do I add two numbers?';

/**
 * The answer in a tool result, as the model reads it: Claude Code gives it the result's text
 * blocks, one per line; Codex a JSON list of them, after its own `Wall time` block. clippy's
 * note (`[clippy: turn …]`) is the last block.
 */
function answerIn(toolResult: string): string {
  let blocks: string[];
  try {
    const items = JSON.parse(toolResult) as { text?: string }[];
    blocks = items.map((i) => i.text ?? '').filter((t) => !t.startsWith('Wall time:'));
  } catch {
    const note = toolResult.lastIndexOf('\n[clippy: ');
    blocks = note === -1 ? [toolResult] : [toolResult.slice(0, note), toolResult.slice(note + 1)];
  }
  return blocks.filter((b) => !b.startsWith('[clippy: ')).join('\n');
}

/** What the model answers, from markers in the question; a tool's result is quoted. */
function respond(r: ModelRequest): Answer | undefined {
  const agent = r.api === 'anthropic' ? 'claude' : 'codex';
  if (r.toolResult !== null) return { kind: 'text', text: `QUOTED:\n${answerIn(r.toolResult)}` };
  const text = r.userText ?? '';
  if (text.includes('CODEX-QUESTION')) return { kind: 'text', text: MARKDOWN_ANSWERS.code! };
  const ask = (session: string, question: string): Answer =>
    JSON.stringify(r.body).includes('list_sessions')
      ? { kind: 'tool', ...ASK[agent], input: { session, text: question } }
      : { kind: 'text', text: TOOLS_NOT_READY };
  if (text.includes('ASK-SH')) return ask('sh', agent === 'claude' ? CLAUDE_SH : CODEX_SH);
  if (text.includes('ASK-CODEX')) return ask('codex', CODEX_QUESTION);
  if (text.includes('ASK-MYSELF')) return ask(agent, 'hello me');
  return undefined;
}

const missing = agentsMissing('claude', 'codex');
if (missing) console.warn(`clippy mcp with the real agents: ${missing}`);

let model: FakeModel;
let d: TestDaemon;
let c: ClippyClient;
const agents: Partial<Record<'claude' | 'codex', AgentSetup & { session: string }>> = {};

/** Registers clippy mcp with the agent by the command `clippy mcp config` prints, and starts it. */
async function start(name: 'claude' | 'codex', extraArgs: string[]): Promise<void> {
  const setup = prepareAgent(name, model, { root: d.env.root, args: extraArgs });
  // The agent finds `clippy` on its PATH and the test's daemon by XDG_RUNTIME_DIR.
  const env = {
    ...setup.env,
    PATH: `${dirname(bins.clippy)}:${setup.env.PATH}`,
    XDG_RUNTIME_DIR: d.env.env.XDG_RUNTIME_DIR!,
    CLIPPYD_PATH: bins.clippyd,
  };
  const line = execFileSync(process.execPath, [bins.clippy, 'mcp', 'config', name], {
    env,
    encoding: 'utf8',
  }).trim();
  // The user's one command, with the pinned agent first on PATH; it writes the temp HOME's config.
  execFileSync('sh', ['-c', line], {
    env: { ...env, PATH: `${dirname(setup.command)}:${env.PATH}` },
    cwd: setup.cwd,
    stdio: 'ignore',
  });
  const r = await c.request('spawn', {
    command: setup.command,
    args: setup.args,
    name,
    preset: setup.preset,
    cwd: setup.cwd,
    env,
    cols: 100,
    rows: 30,
  });
  agents[name] = { ...setup, session: r.session };
}

/**
 * Asks an agent `question` (as `clippy ask` does) and returns its turn: asked again while its
 * model says clippy's tools are not there yet.
 */
async function askAgent(name: 'claude' | 'codex', question: string): Promise<Turn> {
  for (let i = 0; i < TOOL_TRIES; i++) {
    try {
      const turnId = await askTurn(c, name, question, TURN_MS);
      const { turn } = await c.request('get_turn', { turn_id: turnId });
      if (!turn.text.includes(TOOLS_NOT_READY)) return turn;
    } catch (err) {
      throw new Error(`${String(err)}\n${await screenOf(d.env.env, name)}`);
    }
  }
  throw new Error(`${name} never offered clippy's tools\n${await screenOf(d.env.env, name)}`);
}

/** The latest turn of the bash session, and the input that made it. */
async function latestOfSh(): Promise<Turn> {
  return (await c.request('get_turn', { session: 'sh' })).turn;
}

describe.skipIf(missing !== null)('agents asking each other through clippy mcp', () => {
  beforeAll(async () => {
    model = await startFakeModel({ respond });
    d = await TestDaemon.start();
    c = await d.connect();
    await spawnProgram(d, c, 'sh', 'bash', 'bash', ['--norc', '--noprofile']);
    // Claude Code asks before it calls a tool it was not told it may use.
    await start('claude', ['--allowedTools', 'mcp__clippy__ask']);
    await start('codex', []);
    await Promise.all([
      waitState(c, 'claude', 'idle', SCENARIO_MS),
      waitState(c, 'codex', 'idle', SCENARIO_MS),
    ]);
  }, SCENARIO_MS);

  afterAll(async () => {
    for (const a of Object.values(agents)) {
      await c.request('kill', { session: a.session }).catch(() => undefined);
      await waitState(c, a.session, 'exited').catch(() => undefined);
      a.dispose();
    }
    await c?.close();
    await d?.stop();
    await model?.close();
  }, SCENARIO_MS);

  it(
    'Claude Code asks a bash session, and quotes its exact answer',
    async () => {
      const turn = await askAgent('claude', 'ASK-SH: what does the shell say?');
      const sh = await latestOfSh();
      expect(sh.prompt).toBe(CLAUDE_SH);
      expect(sh.text).toBe('asked by claude:\n  two  spaces');
      // Claude Code's own record of its answer: the model's quote of the tool's result.
      expect(turn.text_source).toBe('agent');
      expect(turn.text).toBe(`QUOTED:\n${sh.text}`);
    },
    SCENARIO_MS,
  );

  it(
    "Claude Code asks Codex, and quotes Codex's exact Markdown answer; the result names its turn and tokens",
    async () => {
      const turn = await askAgent('claude', 'ASK-CODEX: get me a review.');
      const { turn: codex } = await c.request('get_turn', { session: 'codex' });
      expect(codex.prompt).toBe(CODEX_QUESTION);
      expect(codex.text_source).toBe('agent');
      expect(codex.text).toBe(MARKDOWN_ANSWERS.code);
      expect(turn.text).toBe(`QUOTED:\n${codex.text}`);
      const result = model.conversation('anthropic').at(-1)!.toolResult!;
      expect(result).toContain(
        `[clippy: turn ${codex.turn_id} (codex:${codex.seq}) of session codex, the agent's own answer`,
      );
      expect(result).toMatch(/\d+ input tokens, \d+ output tokens/u);
    },
    SCENARIO_MS,
  );

  it(
    'Codex, which clears its MCP servers’ environment, asks the bash session and is refused its own',
    async () => {
      const turn = await askAgent('codex', 'ASK-SH: and what does it say to you?');
      const sh = await latestOfSh();
      expect(sh.prompt).toBe(CODEX_SH);
      expect(sh.text).toBe('asked by codex: 42');
      expect(turn.text).toBe(`QUOTED:\n${sh.text}`);
      // Its server knows its session from its process (no CLIPPY_SESSION_ID reaches it).
      const self = await askAgent('codex', 'ASK-MYSELF: talk to yourself.');
      expect(self.text).toContain(
        `QUOTED:\nsession 'codex' (${agents.codex!.session}) is your own, the agent running this clippy mcp: ask cannot target it`,
      );
    },
    SCENARIO_MS,
  );
});
