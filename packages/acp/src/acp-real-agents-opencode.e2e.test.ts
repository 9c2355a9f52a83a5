// `clippy acp` in front of OpenCode 1.18.33 (issue 45): test-support/acp-agent-suite.ts.
import { describe, it } from 'vitest';
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

/**
 * Opt-in until issue 45's open defect is fixed (see cli/src/real-agents-opencode.e2e.test.ts):
 * OpenCode's screen-side turn completion is flaky under load. Set CLIPPY_TEST_OPENCODE=1.
 */
const OPT_IN = 'CLIPPY_TEST_OPENCODE';

if (process.env[OPT_IN] === '1') acpAgentSuite('opencode');
else
  describe('opencode through clippy acp', () => {
    it.skip(`opt-in (${OPT_IN}=1): its screen-side turn completion is flaky under load (issue 45)`, () => {});
  });
