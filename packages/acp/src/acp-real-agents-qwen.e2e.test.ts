// `clippy acp` in front of Qwen Code 0.24.4 (issue 45): test-support/acp-agent-suite.ts.
import { acpAgentSuite } from './test-support/acp-agent-suite.js';

acpAgentSuite('qwen', {
  firstAnswer: 'table',
  toolAnswerAlone: true,
  cancelWhenBusy: true,
  nextPromptAlone: true,
});
