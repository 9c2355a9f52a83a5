// Issues 32 and 45: Codex 0.171.0, the real CLI, its own answer (the scenarios:
// test-support/agent-channel-suite.ts), Gemini CLI beside it.
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

agentChannelSuite('codex', {
  sessionId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u,
  partner: 'gemini',
  interruptKeys: ['Esc'],
  chrome: /Worked for|Press Ctrl\+O|esc to interrupt|\? for shortcuts/u,
  // Revived in real-agents-life.e2e.test.ts (with Claude Code and Gemini CLI).
  resume: null,
  pricedModel: 'fake-model',
  via: 'codex-rollout',
  nextPromptAlone: true,
});
