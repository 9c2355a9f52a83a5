// `clippy acp` in front of OpenCode 1.18.33 (issue 45): test-support/acp-agent-suite.ts.
import { describe, it } from 'vitest';
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

/**
 * Opt-in until two defects of issue 45 are fixed (the screen-side turn completion and the
 * thoughts that stopped mid-answer are): on a loaded 2-core machine (load 25–38) OpenCode took
 * over STARTUP_TIMEOUT_MS (60 s) to show its prompt, so the first prompt failed, and
 * session/cancel left the hanging turn not interrupted, in 3 of 3 runs. Set CLIPPY_TEST_OPENCODE=1.
 */
const OPT_IN = 'CLIPPY_TEST_OPENCODE';

if (process.env[OPT_IN] === '1') acpAgentSuite('opencode');
else
  describe('opencode through clippy acp', () => {
    it.skip(`opt-in (${OPT_IN}=1): its start and its cancel fail under load (issue 45)`, () => {});
  });
