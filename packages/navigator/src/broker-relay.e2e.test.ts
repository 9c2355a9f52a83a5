import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnAgent } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientBrokerLink } from './broker-client-link.js';
import { navigate } from './navigator.js';
import { OfflinePlanner } from './offline-planner.js';
import type { Planner, PlannerHooks, PlannerInput } from './planner.js';
import { buildMissing } from '@clippy/testkit/requirements';
import { until } from '@clippy/testkit/until';

// The navigator as an agent session: its context relayed into a fake agent, and the agent's
// answer relayed back into the run as feedback for its next step.

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const brokerBuilt =
  buildMissing(path.join(path.dirname(bins.clippyd), '..', 'dist', 'main.js')) === null;

/** The offline planner, recording the feedback each step received. */
class RecordingPlanner implements Planner {
  readonly kind = 'offline';
  readonly model = 'offline';
  readonly feedback: string[][] = [];
  private readonly inner = new OfflinePlanner();
  next(input: PlannerInput, _hooks: PlannerHooks) {
    this.feedback.push([...input.feedback]);
    return this.inner.next(input);
  }
}

let daemon: TestDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

describe.skipIf(!brokerBuilt)('navigator session relayed to and from an agent', () => {
  it('relays a turn report into a fake agent and the agent’s answer back as feedback', async () => {
    daemon = await TestDaemon.start();
    const c = await daemon.connect();
    try {
      await spawnAgent(daemon, c, 'cc', 'claude', 'claude');
      const link = await ClientBrokerLink.connect({ connect: { env: daemon.env.env } });
      expect(link).not.toBeNull();
      const planner = new RecordingPlanner();
      let relayedBack = '';
      await navigate({
        root: appRoot,
        goal: 'fix the token refresh bug in auth',
        planner,
        pricing: { model: 'offline', input: 0, output: 0 },
        tokenBudget: 3000,
        indexOptions: { cache: false },
        broker: link!,
        onTurn: async (report) => {
          if (report.step_number !== 1) return { action: 'continue' };
          const nav = link!.sessionId!;
          // The navigator's first turn (its Turn Report) into the agent, submitted…
          const out = await c.request('relay', { from: nav, to: 'cc' }, { timeoutMs: 30_000 });
          expect(out.submitted).toBe(true);
          const { turn } = await c.request(
            'wait_turn',
            { session: 'cc', after: 'cc:0', timeout_ms: 20_000 },
            { timeoutMs: 0 },
          );
          expect(turn.prompt).toContain('TURN REPORT - Step 1');
          // …and the agent's answer back into the navigator: feedback for step 2.
          const back = await c.request('relay', { from: 'cc', to: nav }, { timeoutMs: 30_000 });
          expect(back.submitted).toBe(true);
          relayedBack = turn.text;
          // The inject travels on the navigator's own connection: let it arrive before step 2.
          await until(() => link!.pendingFeedback > 0, 'the feedback inject', 10_000);
          return { action: 'continue' };
        },
      });
      expect(relayedBack).toContain('ANSWER: ');
      expect(planner.feedback.length).toBeGreaterThanOrEqual(2);
      expect(planner.feedback[0]).toEqual([]);
      // The agent's answer arrives whole (lines compared trimmed: feedback text is trimmed).
      const received = planner.feedback[1]!.join('\n');
      for (const line of relayedBack.split('\n').filter((l) => l.trim()))
        expect(received).toContain(line.trim());
    } finally {
      await c.close();
    }
  });
});
