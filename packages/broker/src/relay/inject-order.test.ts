import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCommand, type AgentName } from '@clippy/testkit/agents/index';
import { answerText, submissions } from '@clippy/testkit/agents/harness';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';

// Texts sent to one session at the same moment, against an in-process broker over its real
// socket, with fake agents in real PTYs.

let tb: TestBroker | null = null;
afterEach(async () => {
  await tb?.stop();
  tb = null;
});

async function agent(kind: AgentName, name: string): Promise<string> {
  tb = await startTestBroker();
  const c = await tb.client();
  const log = join(tb.dir, `${name}.log`);
  const { command, args } = agentCommand(kind, ['--log', log]);
  await c.ok('subscribe', { events: ['session_ready'], sessions: [name] });
  await c.ok('spawn', { command, args, name, preset: kind, env: childEnv(), cwd: tb.dir });
  await c.waitFor((m) => m.type === 'session_ready' && m.name === name);
  return log;
}

describe('texts sent to one session at once', () => {
  for (const kind of ['claude', 'aider'] as const) {
    it(`${kind}: each is typed into an idle agent and submitted on its own, in the order sent`, async () => {
      const log = await agent(kind, 'a');
      const c = await tb!.client();
      const texts = ['the first question', 'the second question', 'the third question'];
      const sent = await Promise.all(
        texts.map((text) => c.ok('send', { session: 'a', text, enter: true })),
      );
      expect(sent.map((r) => r.submitted)).toEqual([true, true, true]);
      // Each text's turn: the third may still run when the last send returns.
      for (let seen = 0; seen < texts.length;) {
        seen = ((await c.ok('list_turns', { session: 'a' })).turns as unknown[]).length;
        if (seen < texts.length)
          await c.ok('wait_turn', { session: 'a', after: `a:${seen}`, timeout_ms: 10_000 });
      }
      expect(submissions(log).map((s) => s.text)).toEqual(texts);
      // Each turn holds its own answer only: no other text was typed during it.
      const turns = (await c.ok('list_turns', { session: 'a' })).turns as {
        seq: number;
        turn_id: string;
      }[];
      for (const t of turns.sort((x, y) => x.seq - y.seq)) {
        const turn = (await c.ok('get_turn', { turn_id: t.turn_id })).turn as {
          prompt: string;
          text: string;
        };
        expect([turn.prompt, turn.text]).toEqual([texts[t.seq - 1], answerText(texts[t.seq - 1]!)]);
      }
    });
  }
});
