// `clippy acp` in front of OpenCode 1.18.33 (issue 45): test-support/acp-agent-suite.ts.
import { describe, it } from 'vitest';
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

/**
 * Opt-in until one more defect of issue 45 is fixed (its slow start and its cancel are: a
 * prompt waits for the start, the second Esc for "esc again to interrupt"): on a loaded 2-core
 * machine, in 2 of 4 runs, the first prompt's thoughts (the screen's text as it grew, then its
 * turn's `screen_text`) lacked words of the list ("1. Read the fi", "   -"), though the answer
 * was exact. Set CLIPPY_TEST_OPENCODE=1.
 */
const OPT_IN = 'CLIPPY_TEST_OPENCODE';

if (process.env[OPT_IN] === '1') acpAgentSuite('opencode');
else
  describe('opencode through clippy acp', () => {
    it.skip(`opt-in (${OPT_IN}=1): its first prompt's thoughts lacked words under load (issue 45)`, () => {});
  });
