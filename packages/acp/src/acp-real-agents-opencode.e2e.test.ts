// `clippy acp` in front of OpenCode 1.18.33 (issue 45): test-support/acp-agent-suite.ts.
import { describe, it } from 'vitest';
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

/**
 * Opt-in until one more defect of issue 45 is fixed: OpenCode streams an answer half-written on
 * screen (`1.`, `3. Writ`), shows its turn done, and draws it whole only later. A streamed answer
 * now waits for that redraw (preset field `answerRedrawMs`), yet in the full suite on 2 cores
 * (load ~15) the first prompt's thoughts — the screen's text — still ended half-written though
 * the answer was exact (1 run of 1 after the fix; 2 of 4 before it). Set CLIPPY_TEST_OPENCODE=1.
 */
const OPT_IN = 'CLIPPY_TEST_OPENCODE';

if (process.env[OPT_IN] === '1') acpAgentSuite('opencode');
else
  describe('opencode through clippy acp', () => {
    it.skip(`opt-in (${OPT_IN}=1): its first prompt's thoughts end half-written under load (issue 45)`, () => {});
  });
