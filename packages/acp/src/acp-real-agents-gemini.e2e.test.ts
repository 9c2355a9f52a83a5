// `clippy acp` in front of Gemini CLI 0.61.0 (issue 31): test-support/acp-agent-suite.ts.
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

acpAgentSuite('gemini');
