// `clippy acp` in front of Codex 0.171.0 (issue 31): test-support/acp-agent-suite.ts.
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

acpAgentSuite('codex');
