// Issue 45: OpenCode 1.18.33, the real CLI (the scenarios: test-support/new-agents-suite.ts).
import { describe, it } from 'vitest';
import { newAgentSuite } from './test-support/new-agents-suite.js';

/**
 * Opt-in until issue 45's open defect is fixed: on a loaded machine OpenCode's screen at times
 * shows its answer at an idle prompt while the screen detector never completes the turn ("the
 * agent reported turn … complete; the screen has not shown it complete"), in 2 of 2 full runs
 * (the 300-line answer, and a short one with the channel off). Set CLIPPY_TEST_OPENCODE=1.
 */
const OPT_IN = 'CLIPPY_TEST_OPENCODE';

if (process.env[OPT_IN] === '1')
  newAgentSuite('opencode', {
    sessionId: /^ses_/u,
    resume: '--session',
    chrome: /┃|▣|ctrl\+p|esc interrupt/u,
  });
else
  describe('opencode, the real CLI', () => {
    it.skip(`opt-in (${OPT_IN}=1): its screen-side turn completion is flaky under load (issue 45)`, () => {});
  });
