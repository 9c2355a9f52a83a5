// `clippy acp` in front of GitHub Copilot CLI 1.0.102 (issue 45): test-support/acp-agent-suite.ts.
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

acpAgentSuite('copilot');
