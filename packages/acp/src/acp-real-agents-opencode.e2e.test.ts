// `clippy acp` in front of OpenCode 1.18.33 (issue 45): test-support/acp-agent-suite.ts.
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

acpAgentSuite('opencode');
