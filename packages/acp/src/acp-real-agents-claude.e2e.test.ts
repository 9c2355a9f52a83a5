// `clippy acp` in front of Claude Code 2.1.197 (issue 31): test-support/acp-agent-suite.ts.
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

acpAgentSuite('claude');
