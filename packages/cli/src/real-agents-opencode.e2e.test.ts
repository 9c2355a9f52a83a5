// Issue 45: OpenCode 1.18.33, the real CLI (the scenarios: test-support/new-agents-suite.ts).
import { newAgentSuite } from './test-support/new-agents-suite.js';

newAgentSuite('opencode', {
  sessionId: /^ses_/u,
  resume: '--session',
  chrome: /┃|▣|ctrl\+p|esc interrupt/u,
});
