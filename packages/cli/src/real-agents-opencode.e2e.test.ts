// Issue 45: OpenCode 1.18.33, the real CLI (the scenarios: test-support/agent-channel-suite.ts).
import { describe, it } from 'vitest';
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

/**
 * Opt-in until issue 45's open defect is fixed: on a loaded machine OpenCode's screen at times
 * shows its answer at an idle prompt while the screen detector never completes the turn ("the
 * agent reported turn … complete; the screen has not shown it complete"), in 2 of 2 full runs
 * (the 300-line answer, and a short one with the channel off). Set CLIPPY_TEST_OPENCODE=1.
 */
const OPT_IN = 'CLIPPY_TEST_OPENCODE';

if (process.env[OPT_IN] === '1')
  agentChannelSuite('opencode', {
    sessionId: /^ses_/u,
    partner: 'claude',
    // It stops on a second Esc ("esc again to interrupt").
    interruptKeys: ['Esc', 'Esc'],
    chrome: /┃|▣|ctrl\+p|esc interrupt/u,
    resume: '--session',
    pricedModel: 'fake-model',
    via: 'opencode-plugin',
    nextPromptAlone: true,
  });
else
  describe('opencode, the real CLI', () => {
    it.skip(`opt-in (${OPT_IN}=1): its screen-side turn completion is flaky under load (issue 45)`, () => {});
  });
