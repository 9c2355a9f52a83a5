import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { agentCommand } from '@clippy/testkit/agents/index';
import { spawnAgent, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { eventually } from '@clippy/testkit/until';

// Issue 32 without the real CLIs: the fake Claude Code runs the hooks clippy wires (`--hooks`:
// SessionStart, UserPromptSubmit, Stop with its transcript), so what a user reads of a turn its
// agent reported — `ask`, `show --screen`, `turns --json`, `ls`, `report` — and what happens
// when the channel breaks (a Stop that comes too late) or is switched off are checked on every
// run, where the real agents may not be installed.

/** An answer whose Markdown the fake's screen draws differently (a mark, indented lines). */
const ANSWER = ['Here is the fix:', '', '```ts', 'const x = 1;', '```', '', '- one', '- two'].join(
  '\n',
);
/** What the screen shows of it, read by the claude preset (its `⏺` mark and indent removed). */
const QUESTION = 'Fix it, please.';
/**
 * The Stop hook of the breaking session runs this long after its prompt is back: past the
 * daemon's wait for a report (CHANNEL_WAIT_MS, 10 s), so the turn is stored from the screen.
 */
const LATE_HOOK_MS = 13_000;
/** Between two looks for the late report: it comes seconds after the turn. */
const REPORT_LOOK_MS = 100;

let d: TestDaemon;
let c: ClippyClient;
let replies: string;
const clippy = (args: string[]) => runClippy(args, d.env.env, 60_000);

beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  replies = join(d.env.root, 'replies.json');
  writeFileSync(replies, JSON.stringify([ANSWER, ANSWER]));
});

afterAll(async () => {
  await c?.close();
  await d?.stop();
});

describe('a Claude session whose hooks report its turns', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    await spawnAgent(d, c, 'hooked', 'claude', 'claude', ['--hooks', '--replies', replies]);
  });

  it('ask prints its Markdown; show --screen the screen’s text; turns --json says the source and the record', async () => {
    const r = await clippy(['ask', 'hooked', QUESTION]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${ANSWER}\n`);
    const screen = await clippy(['show', 'hooked', '--screen']);
    expect(screen.code).toBe(0);
    expect(screen.stdout).toContain('const x = 1;');
    const turns = JSON.parse((await clippy(['turns', 'hooked', '--json'])).stdout) as Record<
      string,
      unknown
    >[];
    expect(turns[0]).toMatchObject({
      text_source: 'agent',
      agent: {
        agent: 'claude',
        via: 'claude-transcript',
        model: 'fake-claude-model',
        input_tokens: QUESTION.length,
        output_tokens: ANSWER.length,
      },
    });
    expect(turns[0]!.disagreement).toBeUndefined();
    const shown = JSON.parse((await clippy(['show', 'hooked', '--json'])).stdout) as {
      text: string;
      screen_text: string;
    };
    expect(shown.text).toBe(ANSWER);
    expect(shown.screen_text).toBe(screen.stdout.replace(/\n$/u, ''));
  });

  it("show --meta prints the agent's record field by field (not `[object Object]`)", async () => {
    const meta = await clippy(['show', 'hooked', '--meta']);
    expect(meta.code, meta.stderr).toBe(0);
    const lines = meta.stdout.split('\n');
    expect(lines).toContain('text_source: "agent"');
    expect(lines).toContain('agent.agent: "claude"');
    expect(lines).toContain('agent.via: "claude-transcript"');
    expect(lines).toContain('agent.model: "fake-claude-model"');
    expect(lines).toContain(`agent.input_tokens: ${QUESTION.length}`);
    expect(lines).toContain(`agent.output_tokens: ${ANSWER.length}`);
    expect(meta.stdout).not.toContain('[object Object]');
  });

  it('ls shows its tokens (ls --json its channel, agent session and model); report fills the usage', async () => {
    const ls = await clippy(['ls']);
    const [head, ...rows] = ls.stdout.trimEnd().split('\n');
    // The fake model has no price: its cost says so rather than show zero.
    expect(head).toMatch(/ TOKENS +COST$/u);
    expect(rows.find((l) => l.startsWith('hooked '))).toMatch(
      new RegExp(` ${QUESTION.length}/${ANSWER.length} +no price$`, 'u'),
    );
    const listed = (
      JSON.parse((await clippy(['ls', '--json'])).stdout) as {
        sessions: Record<string, unknown>[];
      }
    ).sessions.find((s) => s.name === 'hooked');
    expect(listed).toMatchObject({
      agent: 'claude',
      agent_channel: 'live',
      model: 'fake-claude-model',
      input_tokens: QUESTION.length,
      output_tokens: ANSWER.length,
    });
    expect(listed!.agent_session).toMatch(/^[0-9a-f-]{36}$/u);
    const file = join(d.env.root, 'report.json');
    const rep = await clippy(['report', 'hooked', '--report', file]);
    expect(rep.code, rep.stderr).toBe(0);
    const report = JSON.stringify(JSON.parse(readFileSync(file, 'utf8')));
    expect(report).toContain(`"prompt_tokens":${QUESTION.length}`);
    expect(report).toContain(`"output_tokens":${ANSWER.length}`);
    expect(report).toContain('"model":"fake-claude-model"');
  });
});

describe('the channel breaks or is off: the screen gives the turn', { timeout: 90_000 }, () => {
  it('a Stop hook that never comes in time: the turn is the screen’s; the late report is a disagreement on it, in turns --json and ls --json', async () => {
    await spawnAgent(d, c, 'late', 'claude', 'claude', [
      '--hooks',
      '--hook-lag',
      String(LATE_HOOK_MS),
      '--replies',
      replies,
    ]);
    // The first turn: the channel is live (SessionStart came), so its report is waited for.
    const r = await clippy(['ask', 'late', QUESTION, '--timeout', '60']);
    expect(r.code, r.stderr).toBe(0);
    const { turn } = await c.request('get_turn', { session: 'late' });
    expect(turn.text_source).toBe('screen');
    expect(turn.text).toContain('const x = 1;');
    // The report comes after: written on the turn it belongs to, never resolved silently.
    // Waited for through the client (each `clippy` is a node process), then read as a user would.
    await eventually(
      async () => (await c.request('get_turn', { session: 'late' })).turn.disagreement,
      'the late report written on the turn',
      LATE_HOOK_MS * 3,
      REPORT_LOOK_MS,
    );
    const meta = (
      JSON.parse((await clippy(['turns', 'late', '--json'])).stdout) as Record<string, unknown>[]
    )[0]!;
    expect(meta.disagreement).toMatch(/the screen completed the turn before the agent did/u);
    expect(meta).toMatchObject({ text_source: 'screen', agent: { agent: 'claude' } });
    const listed = (
      JSON.parse((await clippy(['ls', '--json'])).stdout) as {
        sessions: Record<string, unknown>[];
      }
    ).sessions.find((s) => s.name === 'late');
    expect(String(listed!.channel_note)).toMatch(/disagree|before the agent did/u);
  });

  it('clippy new --no-agent-channel: no hooks are wired; the text is the screen’s', async () => {
    const { command, args } = agentCommand('claude', ['--hooks', '--replies', replies]);
    const made = await clippy([
      'new',
      '-d',
      '--name',
      'plain',
      '--preset',
      'claude',
      '--no-agent-channel',
      '--',
      command,
      ...args,
    ]);
    expect(made.code, made.stderr).toBe(0);
    await waitState(c, 'plain', 'idle');
    const r = await clippy(['ask', 'plain', QUESTION]);
    expect(r.code, r.stderr).toBe(0);
    const { turn } = await c.request('get_turn', { session: 'plain' });
    expect(turn.text_source).toBe('screen');
    expect(turn.agent).toBeUndefined();
    // The fake got no --settings: it had no hooks to run.
    const { sessions } = await c.request('list_sessions', {});
    const s = sessions.find((x) => x.name === 'plain')!;
    expect(s.args).not.toContain('--settings');
    expect(s.agent_channel).toBeUndefined();
  });
});
