// Issue 45: GitHub Copilot CLI 1.0.102, the real CLI, offline against the fake model (its own
// provider, COPILOT_PROVIDER_*: no GitHub sign-in). The scenarios: test-support/new-agents-suite.ts.
import { newAgentSuite } from './test-support/new-agents-suite.js';

newAgentSuite('copilot', {
  sessionId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u,
  resume: '--session-id',
  chrome: /❯|esc esc interrupt|\/ commands|● |─{10}/u,
});
