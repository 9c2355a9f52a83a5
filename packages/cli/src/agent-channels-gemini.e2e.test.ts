// Issues 32 and 45: Gemini CLI 0.61.0, the real CLI, its own answer (the scenarios:
// test-support/agent-channel-suite.ts), Claude Code beside it.
import { agentChannelSuite } from './test-support/agent-channel-suite.js';

agentChannelSuite('gemini', {
  sessionId: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u,
  partner: 'claude',
  interruptKeys: ['Esc'],
  chrome: /Worked for|Press Ctrl\+O|esc to interrupt|\? for shortcuts/u,
  // Revived in real-agents-life.e2e.test.ts (with Claude Code and Codex).
  resume: null,
  pricedModel: null,
  via: 'gemini-chat',
  nextPromptAlone: true,
});
